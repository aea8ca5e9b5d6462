import { machineTimeZone } from '../../../shared/timeline';

/**
 * The clinic's time zone, in which every screen writes times and draws days: the computer's
 * (README, "Configuration"). The one definition the renderer has.
 */
export const CLINIC_TIME_ZONE = machineTimeZone();
