import type { Label, Task, TaskBoard } from '../../shared/api';
import { connectBridge } from './bridge';
import { AccountScreenStore } from './lib/account-screen.svelte';
import { AccountsStore } from './lib/accounts.svelte';
import { BoardEditorStore } from './lib/board-editor.svelte';
import { CacheLockStore } from './lib/cache-lock.svelte';
import { ConnectFormStore } from './lib/connect-form.svelte';
import { CreateBoardStore } from './lib/create-board.svelte';
import { ApiKeysStore } from './lib/api-keys.svelte';
import { ConnectionStore } from './lib/connection.svelte';
import { ConversationsStore } from './lib/conversations.svelte';
import { ExportDialogStore, type ExportSubject } from './lib/export-dialog.svelte';
import { ExportRunStore } from './lib/export-run.svelte';
import { FollowUpsStore } from './lib/follow-ups.svelte';
import { HubTimelineStore } from './lib/hub-timeline.svelte';
import { KeepRecordStore } from './lib/keep-record.svelte';
import { PatientPickerStore } from './lib/patient-picker.svelte';
import { RecordFollowUpsStore } from './lib/record-follow-ups.svelte';
import { RecordStore } from './lib/record.svelte';
import { RecordingAudioStore } from './lib/recording-audio.svelte';
import { RecordingSearchStore } from './lib/recording-search.svelte';
import { RecordingsStore } from './lib/recordings.svelte';
import { CLINIC_TIME_ZONE } from './lib/clinic-time';
import { NotificationsStore } from './lib/notifications.svelte';
import { RecordReviewStore } from './lib/record-review.svelte';
import { ReviewSettingsStore } from './lib/review-settings.svelte';
import { ReviewStore } from './lib/review.svelte';
import { RetentionStore } from './lib/retention.svelte';
import { RouterStore } from './lib/router.svelte';
import { ShellLinkStore } from './lib/shell-link.svelte';
import { SpeakerNamesStore } from './lib/speaker-names.svelte';
import { SyncStore } from './lib/sync.svelte';
import { TaskDetailStore } from './lib/task-detail.svelte';
import { UnfinishedExportsStore } from './lib/unfinished-exports.svelte';
import { WebhooksStore } from './lib/webhooks.svelte';
import { forgetShellToken, shellToken } from './shell-session';

/**
 * The renderer's one composition root: the bridge to main, and the stores. Those that outlive a
 * screen (so Back returns to the same list, filters and selection) are made here once; the rest
 * are made by their component, each its own, through `newStore`. Every store takes the API in
 * its constructor and nothing else reads the bridge, so a test builds its own store on its own
 * fake (test/renderer/).
 */

export const shellLink = new ShellLinkStore();
const earmark = connectBridge(shellLink, shellToken, forgetShellToken);

export const router = new RouterStore(window);
export const connection = new ConnectionStore(earmark);
export const sync = new SyncStore(earmark);
export const cacheLock = new CacheLockStore(earmark);
export const accounts = new AccountsStore(earmark);
export const exportDialog = new ExportDialogStore();
export const hubTimeline = new HubTimelineStore(earmark);
export const conversations = new ConversationsStore(earmark);
export const recordings = new RecordingsStore(earmark, connection);
export const recordingSearch = new RecordingSearchStore(earmark);
export const followUps = new FollowUpsStore(earmark);
export const review = new ReviewStore(earmark, CLINIC_TIME_ZONE);
// Made for its listener: it turns main's events into system notifications.
new NotificationsStore(earmark, (labelId) => router.open('record', labelId));
export const retention = new RetentionStore(earmark);

/** Stores a component makes for itself (one per screen, record part, player or dialog). */
export const newStore = {
  connectForm: (baseUrl?: string) => new ConnectFormStore(accounts, baseUrl),
  accountScreen: () => new AccountScreenStore(earmark, accounts),
  webhooks: () => new WebhooksStore(earmark),
  apiKeys: () => new ApiKeysStore(earmark),
  record: () => new RecordStore(earmark),
  speakerNames: () => new SpeakerNamesStore(earmark),
  keepRecord: () => new KeepRecordStore(earmark),
  patientPicker: (label: () => Label) => new PatientPickerStore(earmark, label),
  recordFollowUps: () => new RecordFollowUpsStore(earmark, followUps),
  recordingAudio: () => new RecordingAudioStore(earmark),
  unfinishedExports: () => new UnfinishedExportsStore(earmark, exportDialog),
  createBoard: () => new CreateBoardStore(followUps),
  boardEditor: (board: TaskBoard | null, initialName?: string) =>
    new BoardEditorStore(followUps, board, initialName),
  taskDetail: (board: () => TaskBoard, task: () => Task) =>
    new TaskDetailStore(followUps, board, task),
  exportRun: (subject: () => ExportSubject, count: () => number) =>
    new ExportRunStore(earmark, exportDialog, subject, count),
  recordReview: () => new RecordReviewStore(earmark),
  reviewSettings: () => new ReviewSettingsStore(earmark),
};
