import { enableCompileCache } from 'node:module';

// Preloaded into every test process (`--import`): each file of the system lane, and any file run on
// its own, is a new process, and without the cache each one strips and compiles the same
// TypeScript and dependencies again.
const { directory } = enableCompileCache();

/**
 * The variable that gives a server or worker process a test starts the same cache, for a child
 * given an environment of its own; one inheriting the test's gets it from there.
 */
export const COMPILE_CACHE: Record<string, string> = directory ? { NODE_COMPILE_CACHE: directory } : {};
if (directory) process.env.NODE_COMPILE_CACHE = directory;
