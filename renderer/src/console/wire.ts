/**
 * The API's records as the server's own zod schemas describe them. Type-only imports: the
 * schemas themselves use Node modules (node:url) and the OpenAPI extension, which do not belong
 * in the browser bundle, so forms validate on the server and show its field errors.
 */
import type { z } from 'zod';
import type { Group } from '../../../server/schemas/groups';
import type { Event, EventCreate } from '../../../server/schemas/events';
import type { RegistrationType } from '../../../server/schemas/registration-types';
import type { CustomQuestion } from '../../../server/schemas/custom-questions';
import type { Session } from '../../../server/schemas/sessions';
import type { Track } from '../../../server/schemas/tracks';
import type { PromotionCode } from '../../../server/schemas/promotion-codes';
import type { Guest } from '../../../server/schemas/guests';
import type { Checkin, EventStats } from '../../../server/schemas/checkins';
import type { ApiKey } from '../../../server/schemas/auth';
import type { User } from '../../../server/schemas/users';
import type { GuestsCsvImportResult } from '../../../server/schemas/guests-csv';
import type { LanState } from '../../../server/schemas/lan';

export type GroupRecord = z.output<typeof Group>;
export type EventRecord = z.output<typeof Event>;
export type EventInput = z.input<typeof EventCreate>;
export type RegistrationTypeRecord = z.output<typeof RegistrationType>;
export type QuestionRecord = z.output<typeof CustomQuestion>;
export type SessionRecord = z.output<typeof Session>;
export type TrackRecord = z.output<typeof Track>;
export type PromotionCodeRecord = z.output<typeof PromotionCode>;
export type GuestRecord = z.output<typeof Guest>;
export type CheckinRecord = z.output<typeof Checkin>;
export type StatsRecord = z.output<typeof EventStats>;
export type SupervisorRecord = NonNullable<StatsRecord['supervisor']>;
export type ApiKeyRecord = z.output<typeof ApiKey>;
export type LanStateRecord = z.output<typeof LanState>;
export type UserRecord = z.output<typeof User>;
export type CsvImportResult = z.output<typeof GuestsCsvImportResult>;

export type Role = UserRecord['role'];
