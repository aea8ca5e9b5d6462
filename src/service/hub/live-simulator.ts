import { MINUTE_MS } from '../../shared/api';
import type { ClipBank } from '../audio/clip-bank';
import type { ServiceDatabase } from '../db/database';
import { readMeta, writeMeta } from '../db/database';
import type { HubStore } from '../db/hub-store';
import { localDayStart, nextLocalDay, simulateDay, type SimulatedDevice } from './simulator';

const SIMULATED_DEVICES_KEY = 'simulated-devices';

/**
 * Keeps simulated hub devices recording: every minute, the minutes that have ended since the
 * last stored one are generated and stored. A restarted service fills the gap it was down for.
 */
export class HubSimulator {
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly db: ServiceDatabase,
    private readonly hub: HubStore,
    private readonly clips: ClipBank,
    private readonly now: () => number,
  ) {}

  static register(db: ServiceDatabase, devices: SimulatedDevice[]): void {
    writeMeta(db, SIMULATED_DEVICES_KEY, JSON.stringify(devices));
  }

  private devices(): SimulatedDevice[] {
    const stored = readMeta(this.db, SIMULATED_DEVICES_KEY);
    return stored ? (JSON.parse(stored) as SimulatedDevice[]) : [];
  }

  /** Stores every whole minute in (last stored, now], starting no earlier than `fromMs`. */
  fill(fromMs: number): void {
    const endMs = this.now() - (this.now() % MINUTE_MS);
    for (const device of this.devices()) {
      const last = this.hub.lastMinuteMs(device.id);
      const startMs = last === undefined ? fromMs : last + MINUTE_MS;
      this.db.transaction(() => {
        for (let day = localDayStart(startMs); day < endMs; day = nextLocalDay(day)) {
          const minutes = simulateDay(this.clips, device, day).minutes.filter(
            (m) => m.minuteMs >= startMs && m.minuteMs < endMs,
          );
          this.hub.insertMinutes(device.id, minutes);
        }
      })();
    }
  }

  start(): void {
    this.fill(this.now());
    this.timer = setInterval(() => this.fill(this.now()), MINUTE_MS);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }
}
