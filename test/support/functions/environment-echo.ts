/** A function for the runtime's own tests: answers what its process sees of the environment and how often this instance ran. */
let invocations = 0;

export const handler = async (event: { names: string[] }) => {
  invocations++;
  return { invocations, env: Object.fromEntries(event.names.map((name) => [name, process.env[name] ?? null])) };
};
