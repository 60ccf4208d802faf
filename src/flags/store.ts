import { randomUUID } from 'node:crypto';
import type { Db } from '../db/client.ts';
import type { Notifications } from '../db/notifications.ts';
import type { FlagDefinition } from './definitions.ts';
import { gatesAllow, gateList, stateOf, type FlagActor, type FlagGates, type FlagState, type GateValue } from './gates.ts';

/** Every process listens here; the payload is `<origin> <flag name>`. */
export const FLAG_CHANNEL = 'forgegate_feature_flags';

/** Asking about a flag no definition file declares is a programming error, not a "no". */
export class UnknownFlagError extends Error {
  constructor(readonly flag: string) {
    super(`feature flag ${flag} has no definition (add config/feature_flags/<type>/${flag}.yml)`);
  }
}

export type FlagStatus = {
  name: string;
  definition: FlagDefinition;
  /** True when an administrator set the flag; false when it answers its definition's default. */
  persisted: boolean;
  gates: FlagGates;
  state: FlagState;
  gateValues: GateValue[];
};

/** What an administrator sets: the boolean gate, or a percentage of actors (1..99). */
export type FlagChange = { enabled: boolean } | { percentageOfActors: number };

/**
 * Feature flags kept in PostgreSQL (table feature_flags), read through a per-process cache of
 * every persisted flag. A write notifies FLAG_CHANNEL and every process drops its cache, so a
 * change made through one server is seen by the others as soon as the notification arrives;
 * while the notification connection is down the cache is bypassed.
 */
export class FlagStore {
  private cache: Promise<Map<string, FlagGates>> | null = null;
  // Bumped on every invalidation: a load that started before it must not be kept.
  private generation = 0;
  // Names this process in its own notifications: it has already dropped its cache for those.
  private readonly origin = randomUUID();

  constructor(
    private readonly db: Db,
    readonly definitions: ReadonlyMap<string, FlagDefinition>,
    private readonly notifications: Notifications,
  ) {}

  async listen(): Promise<void> {
    await this.notifications.subscribe(FLAG_CHANNEL, {
      onMessage: (payload) => {
        if (!payload.startsWith(`${this.origin} `)) this.invalidate();
      },
      onGap: () => this.invalidate(),
    });
  }

  definition(name: string): FlagDefinition {
    const definition = this.definitions.get(name);
    if (!definition) throw new UnknownFlagError(name);
    return definition;
  }

  private invalidate() {
    this.generation += 1;
    this.cache = null;
  }

  private async readAll(): Promise<Map<string, FlagGates>> {
    const rows = await this.db.featureFlag.findMany();
    return new Map(rows.map((r) => [r.name, { enabled: r.enabled, percentageOfActors: r.percentageOfActors }]));
  }

  private persisted(): Promise<Map<string, FlagGates>> {
    if (!this.notifications.connected) return this.readAll();
    if (this.cache) return this.cache;
    const generation = this.generation;
    const load = this.readAll();
    this.cache = load;
    load.then(
      () => {
        if (this.generation !== generation && this.cache === load) this.cache = null;
      },
      () => {
        if (this.cache === load) this.cache = null;
      },
    );
    return load;
  }

  private status(name: string, stored: FlagGates | undefined): FlagStatus {
    const definition = this.definition(name);
    const gates = stored ?? { enabled: definition.default_enabled, percentageOfActors: null };
    return { name, definition, persisted: stored !== undefined, gates, state: stateOf(gates), gateValues: gateList(gates) };
  }

  async isEnabled(name: string, actor?: FlagActor): Promise<boolean> {
    const definition = this.definition(name);
    const stored = (await this.persisted()).get(name);
    return gatesAllow(name, stored ?? { enabled: definition.default_enabled, percentageOfActors: null }, actor);
  }

  async get(name: string): Promise<FlagStatus> {
    this.definition(name);
    return this.status(name, (await this.persisted()).get(name));
  }

  /** Every defined flag, by name. */
  async list(): Promise<FlagStatus[]> {
    const stored = await this.persisted();
    return [...this.definitions.keys()].sort().map((name) => this.status(name, stored.get(name)));
  }

  /**
   * Flipper's rules: opening the boolean gate clears the others; closing it clears every gate
   * (the flag stays persisted, off); a percentage keeps the boolean gate closed.
   */
  async set(name: string, change: FlagChange): Promise<FlagStatus> {
    this.definition(name);
    const gates: FlagGates =
      'enabled' in change ? { enabled: change.enabled, percentageOfActors: null } : { enabled: false, percentageOfActors: change.percentageOfActors };
    await this.db.$transaction([this.db.featureFlag.upsert({ where: { name }, create: { name, ...gates }, update: gates }), this.announce(name)]);
    this.invalidate();
    return this.status(name, gates);
  }

  private announce(name: string) {
    return this.db.$executeRaw`SELECT pg_notify(${FLAG_CHANNEL}, ${`${this.origin} ${name}`})`;
  }

  /** Forgets what was set: the flag answers its definition's default again. */
  async remove(name: string): Promise<void> {
    await this.db.$transaction([this.db.featureFlag.deleteMany({ where: { name } }), this.announce(name)]);
    this.invalidate();
  }
}
