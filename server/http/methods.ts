import type { RequestHandler } from 'express';
import { HttpError } from './errors';
import { MSG } from '../../core/messages';

type Method = 'get' | 'post' | 'put' | 'delete';

interface PathMethods {
  /** The path's segments; `undefined` stands for a parameter (`{event_id}`). */
  segments: (string | undefined)[];
  methods: Set<Method>;
}

/**
 * Every path the API declares with the methods it has, so a method a path does not have answers
 * 405 with `Allow` (RFC 9110 section 15.5.6) instead of reaching another route: `PUT
 * /events/1/sessions/tracks` is the tracks path without PUT, not a session whose id is "tracks".
 */
export class RouteTable {
  private readonly paths = new Map<string, PathMethods>();

  add(method: Method, openApiPath: string): void {
    let entry = this.paths.get(openApiPath);
    if (!entry) {
      entry = { segments: splitPath(openApiPath).map((part) => (/^\{\w+\}$/.test(part) ? undefined : part.toLowerCase())), methods: new Set() };
      this.paths.set(openApiPath, entry);
    }
    entry.methods.add(method);
  }

  /**
   * The declared path a request path is, when several could be: at the first segment where two
   * differ, a fixed word beats a parameter (as the routers are mounted to try them).
   */
  match(requestPath: string): PathMethods | undefined {
    const parts = splitPath(requestPath).map((part) => part.toLowerCase());
    let best: PathMethods | undefined;
    for (const entry of this.paths.values()) {
      if (entry.segments.length !== parts.length || !entry.segments.every((segment, i) => segment === undefined || segment === parts[i])) continue;
      if (!best || moreSpecific(entry, best)) best = entry;
    }
    return best;
  }

  /** Answers 405 for a declared path asked with a method it does not have; everything else goes on. */
  guard(): RequestHandler {
    return (req, res, next) => {
      const entry = this.match(req.path);
      const method = req.method.toLowerCase();
      if (!entry || method === 'options' || entry.methods.has(method as Method) || (method === 'head' && entry.methods.has('get'))) return next();
      res.setHeader('Allow', allowHeader(entry.methods));
      next(new HttpError(405, { detail: MSG.methodNotAllowed(req.method) }));
    };
  }
}

/** Segments of a path, one trailing slash ignored (Express routes are not strict about it). */
function splitPath(pathName: string): string[] {
  const trimmed = pathName.replace(/^\/+/, '').replace(/\/$/, '');
  return trimmed === '' ? [] : trimmed.split('/');
}

function moreSpecific(a: PathMethods, b: PathMethods): boolean {
  for (let i = 0; i < a.segments.length; i++) {
    const [aFixed, bFixed] = [a.segments[i] !== undefined, b.segments[i] !== undefined];
    if (aFixed !== bFixed) return aFixed;
  }
  return false;
}

const METHOD_ORDER: Method[] = ['get', 'post', 'put', 'delete'];

function allowHeader(methods: Set<Method>): string {
  const names = METHOD_ORDER.filter((method) => methods.has(method)).map((method) => method.toUpperCase());
  if (methods.has('get')) names.splice(1, 0, 'HEAD');
  return [...names, 'OPTIONS'].join(', ');
}

const tables = new WeakMap<object, RouteTable>();

/** The route table of one app (keyed by its RouteDeps, as every router of the app shares them). */
export function routeTable(owner: object): RouteTable {
  let table = tables.get(owner);
  if (!table) {
    table = new RouteTable();
    tables.set(owner, table);
  }
  return table;
}
