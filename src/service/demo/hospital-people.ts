import { createHash } from 'node:crypto';
import { v4 as uuidV4, v7 as uuidV7 } from 'uuid';
import { seededRandom } from '../random';
import { PATIENT_NAMES } from './dialogue';

/**
 * The scale seed's patients and their owners: a few thousand, made from lists of pet names,
 * first names and surnames by a fixed random sequence, so every scale seed has the same ones
 * (ids included). A patient is called by its pet name in the dialogue and listed under its
 * pet name and its owner's surname ("Maple Okafor"), as practice systems list them.
 */

export interface HospitalPatient {
  id: string;
  /** The pet name and the owner's surname, e.g. "Maple Okafor". */
  name: string;
  /** What the dialogue calls it, e.g. "Maple". */
  petName: string;
  species: string;
  /** The owner's full name, e.g. "Ruth Okafor". */
  owner: string;
}

export const HOSPITAL_PATIENT_COUNT = 3000;

/** More pets than the demo's 60, so names repeat less across three years. */
const MORE_PETS: readonly { name: string; species: string }[] = [
  ...[
    'Alfie',
    'Bonnie',
    'Bruno',
    'Cooper',
    'Dexter',
    'Ellie',
    'Frankie',
    'George',
    'Harvey',
    'Hugo',
    'Iggy',
    'Jack',
    'Kobe',
    'Lexi',
    'Monty',
    'Nell',
    'Ollie',
    'Percy',
    'Quincy',
    'Rolo',
    'Sasha',
    'Toby',
    'Usher',
    'Vinnie',
    'Wilf',
    'Yogi',
    'Zeus',
    'Bear',
    'Duke',
    'Finn',
  ].map((name) => ({ name, species: 'dog' })),
  ...[
    'Binx',
    'Cleo',
    'Dusty',
    'Elsa',
    'Figaro',
    'Gizmo',
    'Indie',
    'Kitty',
    'Mittens',
    'Nimbus',
    'Patch',
    'Salem',
    'Tabby',
    'Whiskers',
    'Zorro',
  ].map((name) => ({ name, species: 'cat' })),
  ...['Bun', 'Dandelion', 'Flopsy', 'Oreo', 'Snowdrop'].map((name) => ({
    name,
    species: 'rabbit',
  })),
  ...['Squeak', 'Truffle', 'Gus'].map((name) => ({ name, species: 'guinea pig' })),
  ...['Polly', 'Rio'].map((name) => ({ name, species: 'parrot' })),
  ...['Noodle', 'Slinky'].map((name) => ({ name, species: 'ferret' })),
];

const PETS: readonly { name: string; species: string }[] = [...PATIENT_NAMES, ...MORE_PETS];

const FIRST_NAMES = [
  'Aisha',
  'Alan',
  'Amelia',
  'Andrew',
  'Anna',
  'Ben',
  'Carol',
  'Chloe',
  'Daniel',
  'David',
  'Deborah',
  'Eleanor',
  'Emma',
  'Fatima',
  'Gareth',
  'Hannah',
  'Harry',
  'Imran',
  'Isla',
  'James',
  'Jane',
  'Joseph',
  'Karen',
  'Kate',
  'Liam',
  'Linda',
  'Mark',
  'Mary',
  'Mohammed',
  'Nadia',
  'Neil',
  'Olivia',
  'Paul',
  'Rachel',
  'Rhys',
  'Ruth',
  'Sam',
  'Sarah',
  'Sophie',
  'Stephen',
  'Susan',
  'Tariq',
  'Wendy',
  'Zoe',
];

const SURNAMES = [
  'Adams',
  'Ahmed',
  'Allen',
  'Bailey',
  'Baker',
  'Begum',
  'Bell',
  'Bennett',
  'Brown',
  'Campbell',
  'Carter',
  'Chapman',
  'Clarke',
  'Collins',
  'Cooper',
  'Davies',
  'Dixon',
  'Edwards',
  'Ellis',
  'Evans',
  'Fisher',
  'Fletcher',
  'Foster',
  'Gill',
  'Graham',
  'Green',
  'Griffiths',
  'Hall',
  'Harris',
  'Hughes',
  'Hussain',
  'Jackson',
  'James',
  'Jenkins',
  'Johnson',
  'Jones',
  'Kaur',
  'Kelly',
  'Khan',
  'King',
  'Lewis',
  'Lloyd',
  'Marshall',
  'Mason',
  'Matthews',
  'Mitchell',
  'Moore',
  'Morgan',
  'Morris',
  'Murphy',
  'Murray',
  'Nowak',
  "O'Brien",
  'Okafor',
  'Owen',
  'Palmer',
  'Parker',
  'Patel',
  'Phillips',
  'Price',
  'Reid',
  'Richards',
  'Roberts',
  'Robinson',
  'Rose',
  'Russell',
  'Scott',
  'Shah',
  'Shaw',
  'Simpson',
  'Singh',
  'Smith',
  'Stewart',
  'Taylor',
  'Thomas',
  'Thompson',
  'Turner',
  'Walker',
  'Ward',
  'Watson',
  'White',
  'Williams',
  'Wilson',
  'Wood',
  'Wright',
  'Young',
];

/**
 * Ids made deterministic: the random bits of each come from SHA-256 of a name and a counter.
 * (Not from a seeded Random: its 32 bits of state would make ids collide within a million.)
 */
export class IdSource {
  private count = 0;

  constructor(private readonly name: string) {}

  private bytes(): Uint8Array {
    return createHash('sha256').update(`${this.name}/${this.count++}`).digest().subarray(0, 16);
  }

  /** A version 4 (random) UUID. */
  uuid(): string {
    return uuidV4({ random: this.bytes() });
  }

  /** A version 7 (time-ordered) UUID of the time `ms`, as the service's records have. */
  timeOrdered(ms: number): string {
    return uuidV7({ msecs: ms, random: this.bytes() });
  }
}

/** The hospital's patients, always the same ones in the same order. */
export function hospitalPatients(count = HOSPITAL_PATIENT_COUNT): HospitalPatient[] {
  const random = seededRandom('earmark-hospital-patients');
  const ids = new IdSource('earmark-hospital-patients');
  const patients: HospitalPatient[] = [];
  const taken = new Set<string>();
  // Owners often bring more than one pet: about one owner for every 1.6 patients.
  const owners: { first: string; surname: string }[] = [];
  while (patients.length < count) {
    const owner =
      owners.length > 0 && random.chance(0.38)
        ? random.pick(owners)
        : { first: random.pick(FIRST_NAMES), surname: random.pick(SURNAMES) };
    const pet = random.pick(PETS);
    const name = `${pet.name} ${owner.surname}`;
    if (taken.has(name)) continue;
    taken.add(name);
    if (!owners.includes(owner)) owners.push(owner);
    patients.push({
      id: ids.uuid(),
      name,
      petName: pet.name,
      species: pet.species,
      owner: `${owner.first} ${owner.surname}`,
    });
  }
  return patients;
}
