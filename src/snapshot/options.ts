import { z } from 'zod';

/** What a snapshot covers and how its agent text is cut; the type is inferred from this schema. */
export const SnapshotOptions = z
  .object({
    interactive_only: z.boolean().optional().describe('Interactive nodes only.'),
    scope_ref: z
      .string()
      .regex(/^e[1-9][0-9]*$/)
      .optional()
      .describe("Only this ref's subtree."),
    scope_selector: z.string().optional().describe("Only the first match's subtree."),
    scope_frame: z.string().optional().describe('Only this frame (engine frame id).'),
    max_depth: z.number().int().min(0).optional().describe('Cut the text below this depth.'),
    viewport: z.boolean().optional().describe('Only what is in the viewport.'),
    viewport_margin: z.number().int().min(0).optional().describe('px around the viewport (300).'),
    include_urls: z.boolean().optional().describe('Show link URLs.'),
    include_boxes: z.boolean().optional().describe('Show bounding boxes.'),
    include_frames: z.boolean().optional().describe('Descend into iframes (default true).'),
    frame_origins: z
      .array(z.string())
      .min(1)
      .max(32)
      .optional()
      .describe("A caller's allowlist narrower than the session's: frames elsewhere are marked, not read."),
    attributes: z
      .array(z.string().regex(/^[a-z][a-z0-9_:.-]*$/i))
      .max(32)
      .optional()
      .describe('DOM attributes to report on interactive elements (model attrs); none by default.'),
    max_chars: z.number().int().min(100).optional().describe('Text budget (default 50000).'),
    max_nodes: z.number().int().min(1).optional().describe('Most nodes in the node list.'),
    strict: z.boolean().optional().describe('Fail instead of cutting.'),
    diff: z.boolean().optional().describe('Only changes since the last snapshot.'),
  })
  .strict();

export type SnapshotOptions = z.output<typeof SnapshotOptions>;
