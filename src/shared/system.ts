import { z } from 'zod';

/** What the browser may know of the server's configuration. */
export const publicConfigSchema = z.object({ chatWidgetUrl: z.string().nullable() });
export type PublicConfig = z.infer<typeof publicConfigSchema>;
