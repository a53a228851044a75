import { enableCompileCache } from 'node:module';

// Preloaded into every test process (`--import`): each file of the system lane, and any file run on
// its own, is a new process, and without the cache each one strips and compiles the same
// TypeScript and dependencies again.
enableCompileCache();
