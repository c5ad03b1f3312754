/** Runs once before all test files. Suites that need more (a Redis server, a build) add it here. */
export default async function setup(): Promise<void> {}
