/** What a repository needs to fetch one page of a list. */
export interface PageRequest {
  limit: number;
  offset: number;
  /** Stored form of `modified`: only records modified at or after it (a delta). */
  modifiedSince?: string;
}
