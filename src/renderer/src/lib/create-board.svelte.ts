import type { IpcError } from '../../../shared/ipc';
import type { FollowUpsStore } from './follow-ups.svelte';

/**
 * Creating a board: a name, and the default template (made at once) or a custom board (the name
 * goes on to the board editor, which starts from the template).
 */
export class CreateBoardStore {
  name = $state('Follow-ups');
  template = $state<'default' | 'custom'>('default');
  creating = $state(false);
  error = $state.raw<IpcError | null>(null);

  constructor(private readonly followUps: FollowUpsStore) {}

  /**
   * 'created' once the board is made, 'custom' with the name for the editor, null when nothing
   * happened (no name, or the service refused: see `error`).
   */
  async submit(): Promise<{ outcome: 'created' } | { outcome: 'custom'; name: string } | null> {
    const name = this.name.trim();
    if (!name || this.creating) return null;
    if (this.template === 'custom') return { outcome: 'custom', name };
    this.creating = true;
    this.error = null;
    const result = await this.followUps.createBoard({ name });
    this.creating = false;
    if (!result.ok) {
      this.error = result.error;
      return null;
    }
    return { outcome: 'created' };
  }
}
