export async function runDemo(_config: unknown): Promise<void> {}
