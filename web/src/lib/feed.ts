/** Videos per feed page (and per "Load more"). */
export const FEED_PAGE_SIZE = 20;

/** Videos in the watch page's related list. */
export const RELATED_LIMIT = 10;
