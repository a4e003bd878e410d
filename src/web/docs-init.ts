/** Starts Swagger UI on /docs with the service's own OpenAPI document (a file, so the page needs no inline script). */
declare const SwaggerUIBundle: (options: Record<string, unknown>) => unknown;

SwaggerUIBundle({ url: '/v1/openapi.json', dom_id: '#swagger-ui', deepLinking: true, tryItOutEnabled: false });
