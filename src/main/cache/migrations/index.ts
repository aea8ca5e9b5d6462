import type { Migration } from '../migrate';
import { migration as coreTables } from './001-core-tables';
import { migration as fullTextSearch } from './002-full-text-search';
import { migration as taskBoards } from './003-task-boards';
import { migration as patientsIndex } from './004-patients-index';
import { migration as conversationRanges } from './005-conversation-ranges';
import { migration as reviewState } from './006-review-state';
import { migration as speakerNames } from './007-speaker-names';
import { migration as retention } from './008-retention';
import { migration as searchByTime } from './009-search-by-time';
import { migration as labelCount } from './010-label-count';
import { migration as recentNotesSearch } from './011-recent-notes-search';
import { migration as reviewQueueChanges } from './012-review-queue-changes';
import { migration as patients } from './013-patients';

/** Every schema version in order: file NNN-*.ts holds version NNN (a test checks it). */
export const MIGRATIONS: readonly Migration[] = [
  coreTables,
  fullTextSearch,
  taskBoards,
  patientsIndex,
  conversationRanges,
  reviewState,
  speakerNames,
  retention,
  searchByTime,
  labelCount,
  recentNotesSearch,
  reviewQueueChanges,
  patients,
];

export const LATEST_SCHEMA_VERSION = MIGRATIONS.at(-1)!.version;
