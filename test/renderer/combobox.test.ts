import { describe, expect, it } from 'vitest';
import { comboboxKey } from '../../src/renderer/src/lib/combobox';

const key = (name: string) => {
  const event = { key: name, prevented: false, stopped: false };
  return Object.assign(event, {
    preventDefault: () => (event.prevented = true),
    stopPropagation: () => (event.stopped = true),
  });
};

describe('the combobox keyboard', () => {
  it('opens with an arrow, then moves through the options, wrapping both ways', () => {
    expect(comboboxKey(key('ArrowDown'), { expanded: false, active: -1, count: 3 })).toEqual({
      kind: 'open',
    });
    expect(comboboxKey(key('ArrowDown'), { expanded: true, active: -1, count: 3 })).toEqual({
      kind: 'move',
      active: 0,
    });
    expect(comboboxKey(key('ArrowDown'), { expanded: true, active: 2, count: 3 })).toEqual({
      kind: 'move',
      active: 0,
    });
    expect(comboboxKey(key('ArrowUp'), { expanded: true, active: 0, count: 3 })).toEqual({
      kind: 'move',
      active: 2,
    });
    expect(comboboxKey(key('ArrowUp'), { expanded: true, active: -1, count: 0 })).toBeNull();
  });

  it('picks with Enter only an active option, and closes the list on Esc without passing it on', () => {
    const enter = key('Enter');
    expect(comboboxKey(enter, { expanded: true, active: 1, count: 3 })).toEqual({
      kind: 'choose',
      index: 1,
    });
    expect(enter.prevented).toBe(true);
    // Enter with nothing active is the form's (it submits).
    const submit = key('Enter');
    expect(comboboxKey(submit, { expanded: true, active: -1, count: 3 })).toBeNull();
    expect(submit.prevented).toBe(false);
    const escape = key('Escape');
    expect(comboboxKey(escape, { expanded: true, active: 0, count: 3 })).toEqual({ kind: 'close' });
    expect(escape.stopped).toBe(true);
    // A second Esc, the list closed, goes on to the dialog.
    const again = key('Escape');
    expect(comboboxKey(again, { expanded: false, active: -1, count: 3 })).toBeNull();
    expect(again.stopped).toBe(false);
    expect(comboboxKey(key('a'), { expanded: true, active: 0, count: 3 })).toBeNull();
  });
});
