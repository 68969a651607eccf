/** The people of the emulator's demo seed, as the kit's helpers and an integrator's tests name them. */

/** Someone who signs in on the emulator's consent page. */
export interface EsignPerson {
  email: string;
  password: string;
  /** The name the service shows (`Connected as …`). */
  name: string;
  /** The Space this person picks on the consent page in Open Mode, by its shown name; none: the first one offered. */
  space?: string;
}

/** The demo seed's users (docs/emulator.md): Alice is an admin of two Spaces, Bob a member of one, Carol of none. */
export const PEOPLE = {
  alice: { email: 'alice@example.com', password: 'alice-password', name: 'Alice Tan', space: 'Acme Legal' },
  bob: { email: 'bob@example.com', password: 'bob-password', name: 'Bob Lim', space: 'Acme Legal' },
  carol: { email: 'carol@example.com', password: 'carol-password', name: 'Carol Wong' },
  dev: { email: 'dev@example.com', password: 'dev-password', name: 'Dev Integrator', space: 'Integrator Space' },
} as const satisfies Record<string, EsignPerson>;

/** The demo seed's Spaces, by id. */
export const SPACES = {
  acme: { spaceId: 'space_acme', name: 'Acme Legal' },
  alice: { spaceId: 'space_alice', name: 'Alice Personal' },
  integrator: { spaceId: 'space_integrator', name: 'Integrator Space' },
} as const;
