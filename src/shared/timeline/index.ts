/**
 * The pure rules of the hub timeline screen (issue 4, UI.md "The timeline"): clinic-local days
 * across daylight-saving changes, fetch windows, minute slots, the capped selection, suggested
 * consults, zoom and a range's transcript. No Node, DOM or Electron: the renderer draws, this
 * decides.
 */
export * from './range';
export * from './clock';
export * from './slots';
export * from './selection';
export * from './consults';
export * from './view';
export * from './transcript';
export * from './bands';
export * from './days';
