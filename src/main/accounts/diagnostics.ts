import type { ConversationList, Device, Identity } from '../../shared/api';
import type { DiagnosticCheck, DiagnosticsReport } from '../../shared/ipc';
import { isUnreachable } from '../service-client/failures';

/** The three calls of the seed's procedure for an empty conversation list (§7). */
export interface DiagnosticsClient {
  me(): Promise<Identity>;
  devices(organizationId: string): Promise<Device[]>;
  firstConversations(): Promise<ConversationList>;
}

const reasonOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

/**
 * The service could not be reached at all: not a finding about the key or the organization
 * (whose advice would send the user to check the wrong thing), but the call's own failure, which
 * the connection status follows.
 */
function rethrowUnreachable(error: unknown): void {
  if (isUnreachable(error)) throw error;
}

function report(checks: DiagnosticCheck[]): DiagnosticsReport {
  return { checks, failedStep: checks.find((c) => !c.ok)?.step ?? null };
}

/**
 * Checks, in the seed's order, the key's organization, scopes and hub entitlement; the
 * organization's devices; then the conversation list without filters. Stops at the first
 * failure and says what to do next.
 */
export async function diagnoseConversations(client: DiagnosticsClient): Promise<DiagnosticsReport> {
  let identity: Identity;
  try {
    identity = await client.me();
  } catch (error) {
    rethrowUnreachable(error);
    return report([
      {
        step: 'identity',
        ok: false,
        summary: `GET /auth/me failed: ${reasonOf(error)}`,
        advice: 'Check the service address and the API key in Settings.',
      },
    ]);
  }
  const features = identity.apiKey?.allowedFeatures ?? [];
  const scoped =
    features.length === 0 || features.includes('logged-in') || features.includes('hub');
  const identityCheck: DiagnosticCheck =
    identity.entitlements?.hub !== true
      ? {
          step: 'identity',
          ok: false,
          summary: `${identity.organizationName} has no hub subscription (entitlements.hub is not true).`,
          advice:
            'Ask the clinic owner to enable the hub subscription, or use the key of another organization.',
        }
      : !scoped
        ? {
            step: 'identity',
            ok: false,
            summary: `The key allows ${features.join(', ')}, not hub access.`,
            advice: 'Create a key with hub access (or "logged-in") and add it in Settings.',
          }
        : {
            step: 'identity',
            ok: true,
            summary: `The key belongs to ${identity.organizationName}, which has the hub subscription.`,
          };
  if (!identityCheck.ok) return report([identityCheck]);

  let devices: Device[];
  try {
    devices = await client.devices(identity.organizationId);
  } catch (error) {
    rethrowUnreachable(error);
    return report([
      identityCheck,
      {
        step: 'devices',
        ok: false,
        summary: `GET /devices failed: ${reasonOf(error)}`,
        advice: 'Try again; if it keeps failing, contact the service provider.',
      },
    ]);
  }
  const devicesCheck: DiagnosticCheck =
    devices.length === 0
      ? {
          step: 'devices',
          ok: false,
          summary: `No devices are registered to ${identity.organizationName}.`,
          advice: 'Register the hub to this organization in the clinic portal.',
        }
      : {
          step: 'devices',
          ok: true,
          summary: `${devices.length} device${devices.length === 1 ? '' : 's'}: ${devices.map((d) => d.displayName).join(', ')}.`,
        };
  if (!devicesCheck.ok) return report([identityCheck, devicesCheck]);

  let page: ConversationList;
  try {
    page = await client.firstConversations();
  } catch (error) {
    rethrowUnreachable(error);
    return report([
      identityCheck,
      devicesCheck,
      {
        step: 'conversations',
        ok: false,
        summary: `GET /hub/conversations failed: ${reasonOf(error)}`,
        advice: 'Try again; if it keeps failing, contact the service provider.',
      },
    ]);
  }
  return report([
    identityCheck,
    devicesCheck,
    page.items.length === 0
      ? {
          step: 'conversations',
          ok: false,
          summary:
            'The list without filters is empty: the devices have not recorded a conversation yet.',
          advice:
            'Check that the hubs are online and in auto mode, or create a conversation from the timeline.',
        }
      : {
          step: 'conversations',
          ok: true,
          summary: `Conversations exist${page.hasMore ? ' (more than one page)' : ` (${page.items.length})`}: check the filters you used.`,
        },
  ]);
}
