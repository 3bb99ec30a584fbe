/**
 * What a user or an API key may do within its group's scope: `manager` everything, `door`
 * only the door's work (DESIGN "Identity, scope and secrets"). `manager` is the default,
 * so keys made before roles existed keep working as they did.
 */
export const ROLES = ['manager', 'door'] as const;

export type Role = (typeof ROLES)[number];

export const DEFAULT_ROLE: Role = 'manager';
