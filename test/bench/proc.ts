// What the benchmarks read of a process from /proc (Linux), as an operator would see it. A module of
// its own, with no imports but node:fs, so that the floor processes load nothing else with it.
import { readFileSync } from "node:fs";

/**
 * VmRSS (now) and VmHWM (the high-water mark since the process started) of a process, in bytes, from
 * /proc (Linux), as an operator would see them; zeros once the process is gone.
 */
export function memoryOf(pid: number | undefined): { rss: number; hwm: number } {
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    const kb = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? 0);
    return { rss: kb("VmRSS") * 1024, hwm: kb("VmHWM") * 1024 };
  } catch {
    return { rss: 0, hwm: 0 };
  }
}

/** CPU seconds (user + system) a process has used so far, from /proc; null when unknown. */
export function cpuSecondsOf(pid: number | undefined): number | null {
  if (pid === undefined) return null;
  try {
    // Fields after the command name (which may hold spaces, hence the last ")"): utime is the 12th.
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return null;
  }
}

/** CPU seconds all cores of the machine have been busy and idle so far, from /proc/stat. */
export function machineCpuSeconds(): { busy: number; idle: number } {
  // cpu  user nice system idle iowait irq softirq steal ...
  const [, ...ticks] = (readFileSync("/proc/stat", "utf8").split("\n")[0] ?? "").trim().split(/\s+/);
  const t = ticks.map(Number);
  const idle = (t[3] ?? 0) + (t[4] ?? 0);
  const busy = t.slice(0, 8).reduce((a, b) => a + b, 0) - idle;
  return { busy: busy / 100, idle: idle / 100 };
}
