/**
 * How every router of the service matches paths: in their exact letter case, and a trailing slash is a different
 * path. The app (src/api/app.ts) and every `Router(...)` of src/api use these options, so a route answers its
 * path as written and nothing else: `/V1/calculate`, `/v1/calculate/` are 404s, never the route by another name
 * (which would also pass by whatever is mounted on the path as written, such as the guards on /v1).
 */
export const ROUTER_OPTIONS = Object.freeze({ caseSensitive: true, strict: true });
