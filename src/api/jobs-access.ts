/**
 * The caller's own jobs (docs/security.md, "Access control"), beside the job API of jobs-route.ts (mounted before it):
 *
 *   GET    /v1/jobs?limit=50&before={id}  the caller's jobs, newest first: {jobs: [Job…], next_url}; `limit` 1–200
 *                                         (default 50), `before` the cursor of the next page (next_url gives it).
 *                                         With AUTH_MODE=off: 403 listing_requires_auth (without tokens a job id is
 *                                         the only key to its result, so no list of ids is handed out).
 *   DELETE /v1/jobs/{id}                  cancels the job: it never starts or its remaining chunks stop, and its
 *                                         results are removed (the job then reads `cancelled`). 204;
 *                                         404 not_found for an id the caller does not own (or that does not exist).
 *                                         With AUTH_MODE=off it works by id, as the status does.
 */
import { Router } from 'express';
import type { Request, Response } from 'express';
import { z } from 'zod';
import type { ZodOpenApiPathsObject } from 'zod-openapi';
import { AppError, appError, entryEnvelope } from '../errors.ts';
import type { AsyncJobs } from '../jobs/async-jobs.ts';
import { DEFAULT_PAGE, MAX_PAGE, ownedJob, ownedJobs } from '../jobs/ownership.ts';
import { JOB_ID_PATTERN } from '../jobs/job-id.ts';
import { ExtendedErrorSchema } from '../schema/response.ts';
import { callerOf } from './auth.ts';
import { sendError } from './error-envelope.ts';
import { ROUTER_OPTIONS } from './routing.ts';
import { JOBS_PATH } from './jobs-route.ts';
import { viewWithExtras, type JobExtrasSource } from './job-view.ts';
import { JobSchema } from './openapi/jobs-paths.ts';

function storeError(err: unknown): unknown {
  return err instanceof AppError ? err : appError('JOB_STORE_UNAVAILABLE', {}, { cause: err });
}

function pageSize(raw: unknown): number {
  const n = typeof raw === 'string' && /^\d{1,4}$/.test(raw) ? Number(raw) : DEFAULT_PAGE;
  return Math.min(Math.max(n, 1), MAX_PAGE);
}

export function jobsAccessRouter(
  jobs: AsyncJobs,
  options: { authRequired: boolean; extras?: JobExtrasSource },
): Router {
  const router = Router(ROUTER_OPTIONS);

  router.get(JOBS_PATH, async (req: Request, res: Response) => {
    try {
      if (!options.authRequired) throw appError('JOBS_LIST_NEEDS_AUTH');
      const limit = pageSize(req.query.limit);
      const before = typeof req.query.before === 'string' ? req.query.before : undefined;
      const page = await ownedJobs(jobs.store, callerOf(res).id, { limit, before });
      res.setHeader('Cache-Control', 'no-store');
      res.status(200).json({
        jobs: await Promise.all(page.jobs.map((job) => viewWithExtras(job, options.extras))),
        next_url: page.next === undefined ? null : `${JOBS_PATH}?limit=${limit}&before=${page.next}`,
      });
    } catch (err) {
      sendError(res, storeError(err));
    }
  });

  router.delete(`${JOBS_PATH}/:id`, async (req: Request, res: Response) => {
    try {
      const job = await ownedJob(jobs.store, req.params.id as string, callerOf(res).id);
      await jobs.cancel(job.id);
      res.setHeader('Cache-Control', 'no-store');
      res.status(204).end();
    } catch (err) {
      sendError(res, storeError(err));
    }
  });
  return router;
}

const errorContent = (examples: Record<string, ReturnType<typeof entryEnvelope>>) => ({
  'application/json': {
    schema: ExtendedErrorSchema,
    examples: Object.fromEntries(Object.entries(examples).map(([name, value]) => [name, { value }])),
  },
});

/** The GET /v1/jobs and DELETE /v1/jobs/{id} operations, merged into the jobs paths by `withJobsAccessPaths`. */
export function withJobsAccessPaths(paths: ZodOpenApiPathsObject): ZodOpenApiPathsObject {
  const idParam = z.object({
    id: z.string().regex(new RegExp(JOB_ID_PATTERN)).meta({ description: 'The job id returned by POST /v1/jobs.' }),
  });
  const list = {
    operationId: 'listJobs',
    tags: ['jobs'],
    summary: "The caller's own jobs, newest first",
    description:
      'Only with access control on (AUTH_MODE=required): the jobs the calling token submitted, newest first, ' +
      `at most \`limit\` (1–${MAX_PAGE}, default ${DEFAULT_PAGE}) per page; \`next_url\` fetches the next page ` +
      '(null on the last). With access control off the answer is 403 listing_requires_auth.',
    requestParams: {
      query: z.object({
        limit: z
          .string()
          .regex(/^\d{1,4}$/)
          .optional()
          .meta({ description: `Jobs per page (1–${MAX_PAGE}).` }),
        before: z.string().regex(new RegExp(JOB_ID_PATTERN)).optional().meta({ description: 'Page cursor.' }),
      }),
    },
    responses: {
      '200': {
        description: 'A page of jobs.',
        content: {
          'application/json': {
            schema: z.object({ jobs: z.array(JobSchema), next_url: z.string().nullable() }).meta({ id: 'JobList' }),
          },
        },
      },
      '403': {
        description: 'Access control is off (code listing_requires_auth).',
        content: errorContent({ listing: entryEnvelope('JOBS_LIST_NEEDS_AUTH') }),
      },
    },
  };
  const cancel = {
    operationId: 'cancelJob',
    tags: ['jobs'],
    summary: 'Cancel a job and remove its results',
    description:
      'A queued job never starts; a running one stops (its remaining chunks are not run); a finished one loses ' +
      'its results. The job then reads `cancelled` (error code job_cancelled) until it expires, and its downloads ' +
      'answer 409 job_cancelled. Another token’s job answers 404, as an id that does not exist.',
    requestParams: { path: idParam },
    responses: {
      '204': { description: 'Cancelled (also when it was cancelled already).' },
      '404': {
        description: 'No such job for this caller (code not_found).',
        content: errorContent({ not_found: entryEnvelope('JOB_NOT_FOUND') }),
      },
    },
  };
  const collection = paths[JOBS_PATH] ?? {};
  const item = paths[`${JOBS_PATH}/{id}`] ?? {};
  return {
    ...paths,
    [JOBS_PATH]: { ...collection, get: list },
    [`${JOBS_PATH}/{id}`]: { ...item, delete: cancel },
  };
}
