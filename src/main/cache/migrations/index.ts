import type { Migration } from '../migrate';
import { migration as coreTables } from './001-core-tables';
import { migration as fullTextSearch } from './002-full-text-search';
import { migration as taskBoards } from './003-task-boards';
import { migration as patientsIndex } from './004-patients-index';
import { migration as conversationRanges } from './005-conversation-ranges';
// 006 is issue 27's (the Review queue); the lead merges it between these two.
import { migration as speakerNames } from './007-speaker-names';

/** Every schema version in order: file NNN-*.ts holds version NNN (a test checks it). */
export const MIGRATIONS: readonly Migration[] = [
  coreTables,
  fullTextSearch,
  taskBoards,
  patientsIndex,
  conversationRanges,
  speakerNames,
];

export const LATEST_SCHEMA_VERSION = MIGRATIONS.at(-1)!.version;
