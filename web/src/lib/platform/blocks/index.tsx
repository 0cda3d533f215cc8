/**
 * `@feedlab/blocks`: the visual track's 19 blocks as components over the same surfaces and hooks as the
 * presets (docs/blocks.md). Their props and defaults are the catalog's (`@feedlab/schemas/ui/blocks/catalog.ts`);
 * every block renders with no props. A block tree exports as TSX over these components, and code
 * templates may use them too.
 *
 * This module is the registry: each block type's component, from the file of its kind (`layout.tsx`,
 * `content.tsx`, `videos.tsx`, `video.tsx`, `player.tsx`).
 */
import type { BlockType } from "@feedlab/schemas/ui/blocks/catalog.ts";
import { Divider, Text } from "./content.tsx";
import { Grid, Page, SplitColumn, Stack, Tabs } from "./layout.tsx";
import { Player } from "./player.tsx";
import {
  Actions,
  Channel,
  Comments,
  Description,
  Likes,
  Published,
  Tags,
  Thumbnail,
  Title,
  Views,
} from "./video.tsx";
import { VideoList } from "./videos.tsx";

export type { DividerProps, TextProps } from "./content.tsx";
export type { GridProps, PageProps, SplitColumnProps, StackProps, TabsProps } from "./layout.tsx";
export type { PlayerProps } from "./player.tsx";
export { VideoScope } from "./scope.tsx";
export type {
  ActionsProps,
  ChannelProps,
  CommentsProps,
  DescriptionProps,
  LikesProps,
  PublishedProps,
  TagsProps,
  ThumbnailProps,
  TitleProps,
} from "./video.tsx";
export type { VideoListProps } from "./videos.tsx";
export {
  Actions,
  Channel,
  Comments,
  Description,
  Divider,
  Grid,
  Likes,
  Page,
  Player,
  Published,
  SplitColumn,
  Stack,
  Tabs,
  Tags,
  Text,
  Thumbnail,
  Title,
  VideoList,
  Views,
};

/** Each block type's component: every block of the catalog has one (the compiler checks). */
export const BLOCK_COMPONENTS = {
  Page,
  Stack,
  Grid,
  SplitColumn,
  Tabs,
  Divider,
  Text,
  VideoList,
  Thumbnail,
  Title,
  Channel,
  Views,
  Published,
  Tags,
  Description,
  Likes,
  Actions,
  Comments,
  Player,
} as const satisfies Record<BlockType, unknown>;
