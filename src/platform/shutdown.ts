import { Server } from 'node:net';
import type { FastifyInstance } from 'fastify';
import './live-events.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** Set once a graceful stop began: `/readyz` answers 503 and every answer closes its connection. */
    stopping: boolean;
  }
}

/**
 * How long an idle keep-alive connection may still bring its next request once stopping began. A
 * client whose loop is held up (a busy machine, a long garbage collection) may send its next
 * request that late on a connection it got an answer on before the stop; closed under it, that
 * request is reset. One second was too short under load on two cores.
 */
const IDLE_GRACE_MS = 3000;
const POLL_MS = 20;

export function registerShutdown(app: FastifyInstance): void {
  app.decorate('stopping', false);
  app.addHook('onRequest', (_request, reply, done) => {
    if (app.stopping) reply.header('Connection', 'close');
    done();
  });
}

function openConnections(server: Server): Promise<number> {
  return new Promise((resolve) => server.getConnections((error, count) => resolve(error ? 0 : count)));
}

/**
 * Stops the app: no new connection is accepted; live streams end; requests in flight finish, up to `timeoutMs`,
 * after which their connections are cut; then the app's own close runs (jobs, change feed, key
 * usage, Redis, the metrics listener). Answers false when connections had to be cut.
 *
 * An open keep-alive connection is not closed while idle at once, as Node's `server.close()`
 * does: the client may be sending its next request on it at that very moment, and would see it
 * reset. Each connection's next answer says `Connection: close` instead; only connections that
 * stay idle for a moment are closed by the server.
 */
export async function stopServing(app: FastifyInstance, timeoutMs: number): Promise<boolean> {
  app.stopping = true;
  // A live stream never ends by itself: ended now, its connection closes like an idle one.
  app.liveEvents.stop();
  const server = app.server;
  let cut = false;
  const deadline = setTimeout(() => {
    cut = true;
    app.log.warn({ timeoutMs }, 'shutdown timeout: closing connections with requests still in flight');
    server.closeAllConnections();
  }, timeoutMs);
  try {
    if (server.listening) {
      // net's close stops listening and leaves the open connections be; http's would also drop the idle ones.
      Server.prototype.close.call(server);
      const graceEnds = Date.now() + Math.min(IDLE_GRACE_MS, timeoutMs);
      while (Date.now() < graceEnds && (await openConnections(server)) > 0) {
        await new Promise((resolve) => setTimeout(resolve, POLL_MS));
      }
    }
    await app.close();
  } finally {
    clearTimeout(deadline);
  }
  return !cut;
}
