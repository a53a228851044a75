/**
 * Settles as `promise` does, or as `late` does once `ms` have passed first (`late` may throw to
 * fail). The timer never keeps the process alive and is cleared once either side settles.
 */
export async function withTimeout<T, L>(promise: Promise<T>, ms: number, late: () => L): Promise<T | L> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<L>((resolve, reject) => {
    timer = setTimeout(() => {
      try {
        resolve(late());
      } catch (error) {
        reject(error);
      }
    }, ms);
    timer.unref();
  });
  try {
    return await Promise.race([promise, timedOut]);
  } finally {
    clearTimeout(timer);
  }
}
