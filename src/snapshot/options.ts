import { z } from 'zod';

/** What a snapshot covers and how its agent text is cut; the type is inferred from this schema. */
export const SnapshotOptions = z
  .object({
    interactive_only: z
      .boolean()
      .optional()
      .describe('Only interactive nodes (and the containers that hold them). Default false.'),
    scope_ref: z
      .string()
      .regex(/^e[1-9][0-9]*$/)
      .optional()
      .describe('Snapshot only the subtree of this ref.'),
    scope_selector: z
      .string()
      .optional()
      .describe('Snapshot only the first element matching this CSS selector (main frame, or scope_frame).'),
    scope_frame: z
      .string()
      .optional()
      .describe('Snapshot only this frame (an engine frame id) and the frames inside it.'),
    max_depth: z
      .number()
      .int()
      .min(0)
      .optional()
      .describe('Cut the agent text below this depth (0 = top level only). Default: no limit.'),
    viewport: z
      .boolean()
      .optional()
      .describe('Only what is within the viewport plus viewport_margin px. Default false (whole page).'),
    viewport_margin: z.number().int().min(0).optional().describe('Default 300 px.'),
    include_urls: z.boolean().optional().describe('Print link URLs in the agent text. Default false.'),
    include_boxes: z.boolean().optional().describe('Bounding boxes in the model and the agent text.'),
    include_frames: z
      .boolean()
      .optional()
      .describe('Descend into iframes (same- and cross-origin, up to 32 frames). Default true.'),
    max_chars: z
      .number()
      .int()
      .min(100)
      .optional()
      .describe('Character budget of the agent text. Default 50,000.'),
    max_nodes: z.number().int().min(1).optional().describe('Upper bound on nodes of the node list.'),
    strict: z
      .boolean()
      .optional()
      .describe('Fail with invalid_request instead of truncating when a limit is exceeded.'),
    diff: z
      .boolean()
      .optional()
      .describe('Make the text the diff against the previous snapshot of this page and scope.'),
  })
  .strict();

export type SnapshotOptions = z.output<typeof SnapshotOptions>;
