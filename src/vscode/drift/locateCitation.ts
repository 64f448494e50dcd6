import type { Wiki } from '../../core/wiki/wiki';
import type { Services } from '../services/services';

/**
 * Where a citation's code is now, through the folder's drift backend (the drift worker); undefined when it does not resolve.
 * A refused file (a link out, a FIFO) does not resolve either: the refusal goes to the log.
 */
export async function locateCitation(services: Pick<Services, 'cores' | 'output'>, wiki: Wiki, citation: { path: string; symbol?: string }): Promise<{ path: string; line: number } | undefined> {
  try {
    return await services.cores.of(wiki).drift.locate(citation);
  } catch (error) {
    services.output.debug(`${citation.path}${citation.symbol ? `:${citation.symbol}` : ''} does not resolve: ${(error as Error).message}`);
    return undefined;
  }
}
