import { randomUUID } from 'node:crypto';
import { MINUTE_MS } from '../../shared/api';
import type { ClipBank } from '../audio/clip-bank';
import type { ServiceDatabase } from '../db/database';
import { readMeta, writeMeta } from '../db/database';
import type { HubStore } from '../db/hub-store';
import type { EventLog } from '../events/event-log';
import { previewOf, type ConversationService } from './conversations';
import { localDayStart, nextLocalDay, simulateDay, type SimulatedDevice } from './simulator';

const SIMULATED_DEVICES_KEY = 'simulated-devices';
const AUTO_RECORDS_KEY = 'auto-records-through';

/**
 * How long after a consult ends a hub in auto mode hands it over as a conversation (the silence it
 * waits for before deciding the visit is over). The demo's seed treats consults that ended this
 * long before it as history.
 */
export const AUTO_RECORD_DELAY_MS = 10 * MINUTE_MS;

export interface LiveSimulatorDeps {
  db: ServiceDatabase;
  hub: HubStore;
  clips: ClipBank;
  events: EventLog;
  conversations: Pick<ConversationService, 'schedule'>;
  now: () => number;
  /** How long processing takes (a conversation handed over is COMPLETED, then processed). */
  processingMs: number;
}

/**
 * Keeps simulated hub devices recording: every minute, the minutes that have ended since the
 * last stored one are generated and stored. A restarted service fills the gap it was down for.
 *
 * Devices in auto mode (`autoRecords`) also hand over each consult once it has ended: a
 * conversation, completed at once, that the service processes into a hub record (HubMic) with
 * its transcript — as the day goes on, the demo clinic gets new recordings. Which consults were
 * handed over is a watermark per device, so a restart hands over those it missed, once.
 */
export class HubSimulator {
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(private readonly deps: LiveSimulatorDeps) {}

  static register(
    db: ServiceDatabase,
    devices: SimulatedDevice[],
    handedOverThrough: number,
  ): void {
    writeMeta(db, SIMULATED_DEVICES_KEY, JSON.stringify(devices));
    for (const device of devices)
      if (device.autoRecords)
        writeMeta(db, `${AUTO_RECORDS_KEY}/${device.id}`, String(handedOverThrough));
  }

  private devices(): SimulatedDevice[] {
    const stored = readMeta(this.deps.db, SIMULATED_DEVICES_KEY);
    return stored ? (JSON.parse(stored) as SimulatedDevice[]) : [];
  }

  /** Stores every whole minute in (last stored, now], starting no earlier than `fromMs`. */
  fill(fromMs: number): void {
    const { db, hub, clips, now } = this.deps;
    const nowMs = now();
    const endMs = nowMs - (nowMs % MINUTE_MS);
    for (const device of this.devices()) {
      const last = hub.lastMinuteMs(device.id);
      const startMs = last === undefined ? fromMs : last + MINUTE_MS;
      db.transaction(() => {
        for (let day = localDayStart(startMs); day < endMs; day = nextLocalDay(day)) {
          const minutes = simulateDay(clips, device, day).minutes.filter(
            (m) => m.minuteMs >= startMs && m.minuteMs < endMs,
          );
          hub.insertMinutes(device.id, minutes);
        }
        if (device.autoRecords) this.handOver(device, nowMs);
      })();
    }
    this.deps.conversations.schedule();
  }

  /** Hands over the consults that ended (by the delay) since the device's watermark. */
  private handOver(device: SimulatedDevice, nowMs: number): void {
    const { db, hub, clips, events, processingMs } = this.deps;
    const key = `${AUTO_RECORDS_KEY}/${device.id}`;
    const stored = readMeta(db, key);
    // A folder seeded before auto mode existed starts handing over from now on.
    const through = stored === undefined ? nowMs : Number(stored);
    const organizationId = hub.device(device.id)?.organization_id;
    if (organizationId === undefined) return;
    const firstDay = localDayStart(through - AUTO_RECORD_DELAY_MS);
    for (let day = firstDay; day <= nowMs; day = nextLocalDay(day)) {
      for (const consult of simulateDay(clips, device, day).consults) {
        const due = consult.endMs + AUTO_RECORD_DELAY_MS;
        if (due <= through || due > nowMs) continue;
        // A conversation someone created over it already (the timeline, the API) stands.
        if (hub.overlapping(device.id, consult.startMs, consult.endMs)) continue;
        const minutes = hub.minutes(device.id, consult.startMs, consult.endMs);
        const id = randomUUID();
        hub.insertConversation({
          id,
          organization_id: organizationId,
          device_id: device.id,
          start_ms: consult.startMs,
          end_ms: consult.endMs,
          status: 'COMPLETED',
          speech_minute_count: previewOf(minutes).speechMinutes,
          origin: 'auto',
          not_importable_reason: '',
          transcript_text: '',
          label_id: null,
          created_ms: nowMs,
          completed_ms: nowMs,
          next_step_ms: nowMs + Math.floor(processingMs / 2),
        });
        events.append(organizationId, 'conversation_created', {
          conversationId: id,
          deviceId: device.id,
        });
      }
    }
    writeMeta(db, key, String(nowMs));
  }

  /** Fills now, then at every whole minute of the service's clock. */
  start(): void {
    this.fill(this.deps.now());
    const tick = () => {
      if (this.stopped) return;
      this.timer = setTimeout(
        () => {
          this.fill(this.deps.now());
          tick();
        },
        MINUTE_MS - (this.deps.now() % MINUTE_MS) + 50,
      );
      this.timer.unref();
    };
    tick();
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
    this.timer = undefined;
  }
}
