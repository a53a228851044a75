// The layers of docs/architecture.md ("Layers between areas"), checked by `npm run lint:imports` in CI.
// Type-only imports count: a type that runs up a layer ties the layers as much as a value does.
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'platform-imports-no-area',
      comment:
        'platform/ is cross-cutting: it knows itself, config.ts, schema.ts and the engine, no business area',
      severity: 'error',
      from: { path: '^src/platform/' },
      to: { path: '^src/', pathNot: '^src/(platform/|engine/|config[.]ts$|schema[.]ts$)' },
    },
    {
      name: 'schema-imports-no-area',
      comment:
        "schema.ts is the tables' types, below every area: it narrows the generated ones with the engine's statuses",
      severity: 'error',
      from: { path: '^src/(schema|db[.]generated)[.]ts$' },
      to: { path: '^src/', pathNot: '^src/(db[.]generated[.]ts$|engine/)' },
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
      comment:
        'the engine, the lowest layer, computes from its arguments: nothing of the database, HTTP or areas, so the browser bundles may take it',
      severity: 'error',
      from: { path: '^src/engine/' },
      to: {
        pathNot: '^src/engine/',
        dependencyTypesNot: ['core'],
      },
    },
    {
      name: 'clients-import-only-the-engine',
      comment:
        "the dashboard and the widget run in the browser: of the server's code they take the engine alone",
      severity: 'error',
      from: { path: '^(dashboard|widget)/' },
      to: { path: '^src/', pathNot: '^src/engine/' },
    },
    {
      name: 'server-imports-no-client-or-tool',
      comment:
        "src/ is below the clients it serves (it bundles them by path), the tools that drive it and the tests; the hosted page, which holds the widget, speaks with the widget's own texts (widget/i18n.ts imports nothing)",
      severity: 'error',
      from: { path: '^src/' },
      to: { path: '^(dashboard|widget|bench|test|packages|db)/', pathNot: '^widget/i18n[.]ts$' },
    },
    {
      name: 'widget-texts-import-nothing',
      comment: 'the one file of a client that src/ may read, so it must stay a leaf',
      severity: 'error',
      from: { path: '^widget/i18n[.]ts$' },
      to: {},
    },
    {
      name: 'sdk-imports-no-server',
      comment: 'the SDK is published alone: its types are generated from the OpenAPI document, not imported',
      severity: 'error',
      from: { path: '^packages/sdk/src/' },
      to: { path: '^src/' },
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
      name: 'areas-composed-by-the-app',
      comment: "an area's module (*.area.ts) is what app.ts composes: nothing else imports one",
      severity: 'error',
      from: {},
      to: { path: '[.]area[.]ts$' },
    },
    {
      name: 'sql-in-queries-only',
      comment: "an area's SQL is in its *.queries.ts: Kysely's builder and sql are used nowhere else of it",
      severity: 'error',
      from: { path: '^src/(?!platform/|engine/)[^/]+/', pathNot: '[.](queries|test|fixture)[.]ts$' },
      to: { path: '(^|/)kysely(/|$)', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'routes-import-no-routes',
      comment: "what two areas' routes share is a wire shape (*.view.ts) or HTTP glue (*.http.ts) below both",
      severity: 'error',
      from: { path: '[.]routes[.]ts$' },
      to: { path: '[.]routes[.]ts$' },
    },
    {
      name: 'views-hold-no-query',
      comment:
        'a view is the wire shape and its mapping (of the row types its queries answer); running a query is the SQL layer',
      severity: 'error',
      from: { path: '[.]view[.]ts$' },
      to: { path: '(^|/)(kysely|pg|@electric-sql/pglite)(/|$)|^src/platform/db[.]ts$' },
    },
    {
      name: 'http-glue-below-routes',
      comment: 'HTTP glue (*.http.ts) serves the routes: nothing below them reads a request',
      severity: 'error',
      from: { path: '[.](service|queries|view|rules|model|jobs|events|adapter)[.]ts$' },
      to: { path: '[.](http|routes)[.]ts$' },
    },
    {
      name: 'rules-are-pure',
      comment:
        "an area's rules (*.rules.ts) decide from their arguments: no SQL, use case, HTTP, job or outside system",
      severity: 'error',
      from: { path: '[.]rules[.]ts$' },
      to: {
        path: '[.](queries|service|routes|http|jobs|events|adapter|page|area)[.]ts$|^src/platform/db[.]ts$|(^|/)kysely(/|$)',
      },
    },
    {
      name: 'models-below-the-layers',
      comment:
        "an area's types and constants (*.model.ts) sit below everything of the area that uses them but the wire shapes",
      severity: 'error',
      from: { path: '[.]model[.]ts$' },
      to: { path: '[.](queries|service|routes|http|jobs|events|adapter|page|area|rules)[.]ts$' },
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
      from: { path: '^(src|dashboard|widget|bench|packages|db|test)/' },
      to: { circular: true },
    },
    {
      name: 'no-module-cycle',
      severity: 'error',
      from: { path: '^(src|dashboard|widget|bench|packages|db|test)/' },
      to: { circular: true },
    },
  ],
  options: {
    // TypeScript 7 has no JavaScript API for dependency-cruiser to parse with; swc reads the files.
    parser: 'swc',
    doNotFollow: { path: 'node_modules' },
    // The composition roots import every area (they sit above all layers); tests and fixtures
    // import the test helpers, which build the whole app.
    exclude: { path: '^src/(app|main|run|demo)[.]ts$|[.](test|fixture)[.]ts$' },
  },
};
