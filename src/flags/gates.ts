import { crc32 } from 'node:zlib';

/** The gates one flag carries. A flag nobody set has its definition's default as boolean gate. */
export type FlagGates = { enabled: boolean; percentageOfActors: number | null };

export type FlagState = 'on' | 'off' | 'conditional';

export type GateValue = { key: 'boolean'; value: boolean } | { key: 'percentage_of_actors'; value: number };

/**
 * Who a flag is asked about. A user (anything with a numeric or string `id` counts as one), or
 * any other record named by `flagActor(kind, id)`, so a project 5 and a user 5 are two actors.
 */
export type FlagActor = { id: number | string } | { flipperId: string };

export const flagActor = (kind: string, id: number | string): FlagActor => ({ flipperId: `${kind}:${id}` });

const actorId = (actor: FlagActor) => ('flipperId' in actor ? actor.flipperId : `User:${actor.id}`);

// Buckets at 1/1000 of a percent, so 0.001% steps would stay stable if fractional gates came.
const SCALE = 1000;

/**
 * Deterministic: the same actor and flag always land in the same bucket, and raising the
 * percentage only adds actors (an actor inside 10% is inside 20%). The flag name is part of the
 * hash so that the same users are not the early adopters of every flag.
 */
export function actorInPercentage(flag: string, actor: FlagActor, percentage: number): boolean {
  return crc32(`${flag}${actorId(actor)}`) % (100 * SCALE) < percentage * SCALE;
}

export function gatesAllow(flag: string, gates: FlagGates, actor?: FlagActor): boolean {
  if (gates.enabled) return true;
  if (!actor || !gates.percentageOfActors) return false;
  return actorInPercentage(flag, actor, gates.percentageOfActors);
}

/** Flipper's summary: on when the boolean gate is open, conditional when another gate is set. */
export function stateOf(gates: FlagGates): FlagState {
  if (gates.enabled) return 'on';
  return gates.percentageOfActors ? 'conditional' : 'off';
}

/** The gate list GitLab shows: always the boolean gate, other gates only when set. */
export function gateList(gates: FlagGates): GateValue[] {
  const list: GateValue[] = [{ key: 'boolean', value: gates.enabled }];
  if (gates.percentageOfActors) list.push({ key: 'percentage_of_actors', value: gates.percentageOfActors });
  return list;
}
