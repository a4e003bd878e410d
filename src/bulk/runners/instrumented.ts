/** A runner wrapped for the Prometheus metrics (src/metrics.ts): every runner the service uses goes through it. */
import type { ChunkOutput, ChunkRunner, ChunkTask } from '../runner.ts';
import { metrics } from '../../metrics.ts';

/**
 * Wraps a runner so every chunk it runs is counted: sor_bulk_chunk_duration_seconds{runner,outcome},
 * sor_bulk_rows_processed_total, sor_bulk_row_errors_total, sor_bulk_students_processed_total.
 */
export function instrumentRunner(inner: ChunkRunner): ChunkRunner {
  const wrapped: ChunkRunner = {
    kind: inner.kind,
    inflightLimit: inner.inflightLimit,
    async run(task: ChunkTask): Promise<ChunkOutput> {
      const end = metrics.chunkDuration.startTimer({ runner: inner.kind });
      try {
        const out = await inner.run(task);
        end({ outcome: 'ok' });
        metrics.rowsProcessed.inc(out.rows);
        metrics.rowErrors.inc(out.errorRows);
        metrics.studentsProcessed.inc(out.students);
        return out;
      } catch (err) {
        end({ outcome: 'failed' });
        throw err;
      }
    },
    close: () => inner.close(),
  };
  return wrapped;
}
