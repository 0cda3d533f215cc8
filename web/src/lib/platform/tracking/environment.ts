import type { Payloads } from "@feedlab/schemas";

type Environment = Payloads["SESSION_START"]["environment"] & { readonly [extra: string]: unknown };

interface NetworkInformationLike {
  readonly effectiveType?: string;
  readonly downlink?: number;
  readonly rtt?: number;
  readonly saveData?: boolean;
}

/** SESSION_START's `environment`: viewport, screen, browser, language, platform, time zone, connection. */
export function describeEnvironment(win: Window = window): Environment {
  const nav = win.navigator as Navigator & {
    connection?: NetworkInformationLike;
    userAgentData?: { platform?: string };
  };
  const connection = nav.connection;
  return {
    viewport: { width: win.innerWidth, height: win.innerHeight },
    screen: { width: win.screen?.width ?? 0, height: win.screen?.height ?? 0 },
    userAgent: nav.userAgent,
    language: nav.language ?? "",
    platform: nav.userAgentData?.platform || nav.platform || "",
    timezone: Intl.DateTimeFormat().resolvedOptions().timeZone ?? "",
    devicePixelRatio: win.devicePixelRatio ?? 1,
    ...(connection
      ? {
          connection: {
            effectiveType: connection.effectiveType ?? null,
            downlink: connection.downlink ?? null,
            rtt: connection.rtt ?? null,
            saveData: connection.saveData ?? null,
          },
        }
      : {}),
  };
}
