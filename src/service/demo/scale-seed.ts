import { MINUTE_MS, RECORD_TYPES } from '../../shared/api';
import type { ClinicService } from '../app';
import { localDayStart, nextLocalDay, simulateDay } from '../hub/simulator';
import { seededRandom } from '../random';
import { DIALOGUE_SCRIPTS, PATIENT_NAMES } from './dialogue';
import { transcriptOf } from './demo-seed';
import { DEMO_DEVICES, seedIdentity, type DemoCredentials } from './identity-seed';

const DAY_MS = 24 * 60 * 60 * 1000;
/** Labels a simulated clinic day holds; hub data spans as many days as the labels do. */
const LABELS_PER_DAY = 200;

/**
 * `--seed scale:N`: the demo's organizations and keys, N labels with transcripts (no audio)
 * spread back from now, and hub minutes for the same span on one device. Built with prepared
 * statements in one transaction: 100,000 labels take seconds.
 */
export function seedScale(service: ClinicService, count: number, now: number): DemoCredentials {
  const { db, labels, hub, clips } = service;
  return db.transaction(() => {
    const { credentials, staffIds } = seedIdentity(service, now);
    const organizationId = credentials.primary.organizationId;
    const random = seededRandom(`earmark-scale-${count}`);
    const patientIds = PATIENT_NAMES.map((p) =>
      labels.createPatient(organizationId, p.name, p.species),
    );
    const transcripts = DIALOGUE_SCRIPTS.map(transcriptOf);
    const days = Math.max(1, Math.ceil(count / LABELS_PER_DAY));
    const spanMs = days * DAY_MS;
    for (let i = 0; i < count; i++) {
      const fromMs = now - spanMs + Math.floor((i * spanMs) / count);
      const createdMs = fromMs + 10 * MINUTE_MS;
      labels.create({
        organizationId,
        type: RECORD_TYPES[i % RECORD_TYPES.length]!,
        fromMs,
        toMs: fromMs + random.int(3, 30) * MINUTE_MS,
        patientId: random.pick(patientIds),
        userId: random.pick(staffIds),
        friendlyName: 'Exam Room iPad',
        deviceSerial: 'IPAD-44F1',
        notes: [
          {
            type: 'Transcript',
            content: `${transcripts[i % transcripts.length]}\nVisit ${i + 1}.`,
            createdMs,
            timeMs: createdMs,
          },
        ],
      });
    }
    const device = DEMO_DEVICES[0];
    const endMs = now - (now % MINUTE_MS);
    for (
      let day = localDayStart(now - Math.min(days, 30) * DAY_MS);
      day < endMs;
      day = nextLocalDay(day)
    ) {
      hub.insertMinutes(
        device.id,
        simulateDay(clips, { id: device.id, offAtNight: false }, day).minutes.filter(
          (m) => m.minuteMs < endMs,
        ),
      );
    }
    return credentials;
  })();
}
