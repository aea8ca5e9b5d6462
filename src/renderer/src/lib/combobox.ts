/**
 * The keyboard of a combobox with a list of suggestions (ARIA 1.2's pattern; the focus stays on
 * the input, `aria-activedescendant` points at the active option): ↓/↑ open the list, then move
 * through it (wrapping); Enter picks the active option; Esc closes the list, and only a second
 * Esc reaches what is around it (a dialog closes then).
 */
export type ComboboxMove =
  | { kind: 'open' }
  | { kind: 'move'; active: number }
  | { kind: 'choose'; index: number }
  | { kind: 'close' };

/** What `event` does to a list of `count` options; null when the key is not the combobox's. */
export function comboboxKey(
  event: Pick<KeyboardEvent, 'key' | 'preventDefault' | 'stopPropagation'>,
  { expanded, active, count }: { expanded: boolean; active: number; count: number },
): ComboboxMove | null {
  if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
    event.preventDefault();
    if (!expanded) return { kind: 'open' };
    if (count === 0) return null;
    const step = event.key === 'ArrowDown' ? 1 : -1;
    return { kind: 'move', active: (active + step + count) % count };
  }
  if (event.key === 'Enter' && expanded && active >= 0) {
    event.preventDefault();
    return { kind: 'choose', index: active };
  }
  if (event.key === 'Escape' && expanded) {
    event.preventDefault();
    event.stopPropagation();
    return { kind: 'close' };
  }
  return null;
}
