/** The screens of the sidebar; the address's hash keeps the current one across reloads. */
export const SCREENS = [
  { id: 'review', label: 'Review' },
  { id: 'timeline', label: 'Hub timeline' },
  { id: 'conversations', label: 'Conversations' },
  { id: 'recordings', label: 'Recordings' },
  { id: 'follow-ups', label: 'Follow-ups' },
  { id: 'settings', label: 'Settings' },
] as const;

/** The sections of Settings (`#settings/<section>`); the account's is the default. */
export const SETTINGS_SECTIONS = [
  { id: 'account', label: 'Account' },
  { id: 'data', label: 'Data on this computer' },
  { id: 'webhooks', label: 'Webhooks' },
  { id: 'keys', label: 'API keys' },
  { id: 'review', label: 'Review' },
] as const;
export type SettingsSection = (typeof SETTINGS_SECTIONS)[number]['id'];

/** Screens reached from another screen (not in the sidebar), with the id of what they show. */
export type DetailScreen = 'record';
export type SidebarScreen = (typeof SCREENS)[number]['id'];
export type ScreenId = SidebarScreen | DetailScreen;

const DETAIL_SCREENS: readonly string[] = ['record'];

export interface Route {
  screen: ScreenId;
  /** What a detail screen shows, or the section of a sidebar screen (null: its default). */
  id: string | null;
  /** A record opened from a search hit: the search, to open the transcript at its line. */
  find?: string;
}

function parse(hash: string): Route {
  const [screen = '', id = null, find = ''] = hash.replace(/^#\/?/, '').split('/');
  if (SCREENS.some((s) => s.id === screen))
    return { screen: screen as ScreenId, id: id ? decodeURIComponent(id) : null };
  if (DETAIL_SCREENS.includes(screen) && id)
    return {
      screen: screen as DetailScreen,
      id: decodeURIComponent(id),
      ...(find ? { find: decodeURIComponent(find) } : {}),
    };
  return { screen: 'timeline', id: null };
}

/** What the router needs of the window: its address, its history, and word of their changes. */
export interface RouterWindow {
  readonly location: { readonly hash: string };
  readonly history: { pushState(data: null, unused: string, url: string): void };
  addEventListener(type: 'hashchange' | 'popstate', listener: () => void): void;
}

/** The screen the window shows, kept in the address's hash so a reload and Back keep it. */
export class RouterStore {
  route = $state<Route>({ screen: 'timeline', id: null });

  constructor(private readonly window: RouterWindow) {
    this.sync();
    window.addEventListener('hashchange', () => this.sync());
    window.addEventListener('popstate', () => this.sync());
  }

  /** Follows the address after Back, Forward or a typed hash. */
  sync(): void {
    this.route = parse(this.window.location.hash);
  }

  get screen(): ScreenId {
    return this.route.screen;
  }

  /** A sidebar screen, optionally at one of its sections. */
  go(screen: SidebarScreen, section: string | null = null): void {
    this.route = { screen, id: section };
    this.window.history.pushState(
      null,
      '',
      section ? `#${screen}/${encodeURIComponent(section)}` : `#${screen}`,
    );
  }

  /**
   * Opens a detail screen (a record) so Back returns to where the user was; `find`, a search
   * whose hit it is, opens its transcript at the matching line.
   */
  open(screen: DetailScreen, id: string, find?: string): void {
    this.route = { screen, id, ...(find ? { find } : {}) };
    const tail = find ? `/${encodeURIComponent(find)}` : '';
    this.window.history.pushState(null, '', `#${screen}/${encodeURIComponent(id)}${tail}`);
  }
}
