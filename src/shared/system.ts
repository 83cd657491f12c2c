import { z } from 'zod';

/** What the browser may know of the server's configuration. */
export const publicConfigSchema = z.object({
  chatWidgetUrl: z.string().nullable(),
  /** The largest document (PDF) one upload may carry, in bytes: the drop zones say it before an upload. */
  documentMaxBytes: z.number().int(),
});
export type PublicConfig = z.infer<typeof publicConfigSchema>;
