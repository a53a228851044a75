// The layers of docs/architecture.md ("Layers between areas"), checked by `npm run lint:imports` in CI.
// Type-only imports count: a type that runs up a layer ties the layers as much as a value does.
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'platform-imports-no-area',
      comment: 'platform/ is cross-cutting: it knows itself, config.ts and schema.ts, no business area',
      severity: 'error',
      from: { path: '^src/platform/' },
      to: { path: '^src/', pathNot: '^src/(platform/|config[.]ts$|schema[.]ts$)' },
    },
    {
      name: 'schema-imports-no-area',
      comment: "schema.ts is the tables' types, below every area: it narrows the generated ones",
      severity: 'error',
      from: { path: '^src/(schema|db[.]generated)[.]ts$' },
      to: { path: '^src/', pathNot: '^src/db[.]generated[.]ts$' },
    },
    {
      name: 'generated-types-through-schema',
      comment: 'the code takes the generated tables narrowed, from schema.ts',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/schema[.]ts$' },
      to: { path: '^src/db[.]generated[.]ts$' },
    },
    {
      name: 'engine-is-pure',
      comment: 'the slot engine computes from its arguments: nothing of the database, HTTP or other areas',
      severity: 'error',
      from: { path: '^src/availability/engine/' },
      to: {
        pathNot: '^src/availability/engine/',
        dependencyTypesNot: ['core'],
      },
    },
    {
      name: 'queries-import-no-service-or-routes',
      comment: 'SQL sits below the use cases and the routes',
      severity: 'error',
      from: { path: '[.]queries[.]ts$' },
      to: { path: '[.](service|routes)[.]ts$' },
    },
    {
      name: 'queries-hold-no-wire-shape',
      comment:
        "a wire shape (TypeBox) and its mapping live in the area's routes or *.view.ts, not beside the SQL",
      severity: 'error',
      from: { path: '[.]queries[.]ts$' },
      // typebox is left unresolved (no export condition the resolver asks for): its bare name is matched too
      to: { path: '^(typebox$|typebox/|node_modules/typebox/)' },
    },
    {
      name: 'routes-import-no-queries',
      comment: 'a route calls a use case, which calls the SQL',
      severity: 'error',
      from: { path: '[.]routes[.]ts$' },
      to: { path: '[.]queries[.]ts$' },
    },
    {
      name: 'service-imports-no-routes',
      comment: 'a use case knows nothing of HTTP',
      severity: 'error',
      from: { path: '[.]service[.]ts$' },
      to: { path: '[.]routes[.]ts$' },
    },
    {
      name: 'no-folder-cycle',
      comment: 'two areas that import each other are one area, or share something that belongs below both',
      severity: 'error',
      scope: 'folder',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'no-module-cycle',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true },
    },
  ],
  options: {
    // TypeScript 7 has no JavaScript API for dependency-cruiser to parse with; swc reads the files.
    parser: 'swc',
    doNotFollow: { path: 'node_modules' },
    // The composition roots import every area (they sit above all layers); tests and fixtures
    // import the test helpers, which build the whole app.
    exclude: { path: '^src/(app|main|demo)[.]ts$|[.](test|fixture)[.]ts$' },
  },
};
