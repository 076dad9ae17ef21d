// autocannon ships no types; the harness uses a small part of it.
declare module 'autocannon' {
  function autocannon(options: Record<string, unknown>): import('node:events').EventEmitter;
  export default autocannon;
}
