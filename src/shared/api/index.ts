export * from './common';
export * from './errors';
export * from './identity';
export * from './devices';
export * from './labels';
export * from './conversations';
export * from './events';
