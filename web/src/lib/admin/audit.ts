/** How many entries a page of the console's audit log shows at a time. */
export const AUDIT_PAGE = 100;
