import type { BlockNode } from "./catalog.ts";

/** A starting tree for a new block layout of a page: something that works, to change. */
export function starterTree(page: "feed" | "watch"): BlockNode {
  const card = [{ type: "Thumbnail" }, { type: "Title" }, { type: "Channel" }, { type: "Views" }];
  if (page === "feed")
    return {
      type: "Page",
      children: [
        { type: "Text", props: { style: "heading", text: "Recommended for you" } },
        { type: "VideoList", props: { source: "feed", layout: "grid" }, children: card },
      ],
    };
  return {
    type: "Page",
    children: [
      {
        type: "SplitColumn",
        children: [
          {
            type: "Stack",
            children: [
              { type: "Player" },
              { type: "Title", props: { size: "large" } },
              { type: "Actions", children: [{ type: "Likes" }] },
              { type: "Description" },
              { type: "Comments" },
            ],
          },
          {
            type: "VideoList",
            props: { source: "related", title: "Related videos", layout: "list", pageSize: 10 },
            children: card,
          },
        ],
      },
    ],
  };
}
