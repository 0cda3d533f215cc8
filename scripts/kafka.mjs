#!/usr/bin/env node
// `npm run kafka` starts a single-node Apache Kafka broker (KRaft mode) on 127.0.0.1 in the
// background, for tests and for people without Docker. The first run fetches Kafka's jars from Maven
// Central with Maven into a cache folder; later runs start in seconds. The last line printed is
// `KAFKA_BROKERS=127.0.0.1:PORT`. Kafka's command-line tools come with it, as scripts in
// .cache/kafka/bin (kafka-console-consumer, kafka-console-producer, kafka-topics,
// kafka-consumer-groups, kafka-get-offsets, kafka-producer-perf-test): `export PATH=$PWD/.cache/kafka/bin:$PATH`.
//
//   npm run kafka                 start (or report the running broker)
//   npm run kafka -- stop         stop it
//   npm run kafka -- status       say whether it runs
//
// Environment: FEEDLAB_KAFKA_HOME (cache and data folder, default .cache/kafka), FEEDLAB_KAFKA_PORT
// (default 19092; the controller listens on PORT+1), JAVA (default java), MVN (default mvn).
import { execFileSync, spawn } from "node:child_process";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import net from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const home = path.resolve(root, process.env.FEEDLAB_KAFKA_HOME ?? ".cache/kafka");
const port = Number(process.env.FEEDLAB_KAFKA_PORT ?? 19092);
const java = process.env.JAVA ?? "java";
const mvn = process.env.MVN ?? "mvn";
const libs = path.join(home, "libs");
const bin = path.join(home, "bin");
const dataDir = path.join(home, `data-${port}`);
const pidFile = path.join(home, `broker-${port}.pid`);
const logFile = path.join(home, `broker-${port}.log`);

const say = (line) => process.stderr.write(`kafka: ${line}\n`);

function running() {
  if (!existsSync(pidFile)) return null;
  const pid = Number(readFileSync(pidFile, "utf8"));
  try {
    process.kill(pid, 0);
    return pid;
  } catch {
    return null;
  }
}

function reachable(p, timeoutMs = 500) {
  return new Promise((resolve) => {
    const s = net.connect({ host: "127.0.0.1", port: p });
    const done = (ok) => {
      s.destroy();
      resolve(ok);
    };
    s.setTimeout(timeoutMs, () => done(false));
    s.once("connect", () => done(true));
    s.once("error", () => done(false));
  });
}

/** Kafka's command-line tools, as the scripts of its distribution name them, and their classes. */
const TOOLS = {
  "kafka-console-consumer": "org.apache.kafka.tools.consumer.ConsoleConsumer",
  "kafka-console-producer": "kafka.tools.ConsoleProducer",
  "kafka-topics": "org.apache.kafka.tools.TopicCommand",
  "kafka-consumer-groups": "org.apache.kafka.tools.consumer.group.ConsumerGroupCommand",
  "kafka-get-offsets": "org.apache.kafka.tools.GetOffsetShell",
  "kafka-producer-perf-test": "org.apache.kafka.tools.ProducerPerformance",
};

function writeTools() {
  mkdirSync(bin, { recursive: true });
  const log4j = path.join(root, "scripts/kafka/tools-log4j.properties");
  for (const [name, main] of Object.entries(TOOLS)) {
    const file = path.join(bin, name);
    writeFileSync(
      file,
      `#!/bin/sh\n# Apache Kafka's ${name}, from the jars \`npm run kafka\` fetched.\nexec "\${JAVA:-java}" -Dlog4j.configuration=file:${log4j} -cp "${libs}/*" ${main} "$@"\n`,
    );
    chmodSync(file, 0o755);
  }
}

function fetchJars() {
  const jars = existsSync(libs) ? readdirSync(libs) : [];
  if (jars.some((f) => f.startsWith("kafka_2.13-")) && jars.some((f) => f.startsWith("kafka-tools-3"))) {
    writeTools();
    return;
  }
  say(`fetching Apache Kafka's jars from Maven Central into ${libs} (once)...`);
  mkdirSync(home, { recursive: true });
  execFileSync(
    mvn,
    [
      "-q",
      "-B",
      "-f",
      path.join(root, "scripts/kafka/pom.xml"),
      "dependency:copy-dependencies",
      `-DoutputDirectory=${libs}`,
      "-DincludeScope=runtime",
    ],
    { stdio: ["ignore", "inherit", "inherit"] },
  );
  writeTools();
}

function config() {
  return [
    "process.roles=broker,controller",
    "node.id=1",
    `controller.quorum.voters=1@127.0.0.1:${port + 1}`,
    `listeners=PLAINTEXT://127.0.0.1:${port},CONTROLLER://127.0.0.1:${port + 1}`,
    `advertised.listeners=PLAINTEXT://127.0.0.1:${port}`,
    "controller.listener.names=CONTROLLER",
    "listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT",
    "inter.broker.listener.name=PLAINTEXT",
    `log.dirs=${dataDir}`,
    "num.partitions=4",
    "offsets.topic.replication.factor=1",
    "offsets.topic.num.partitions=4",
    "transaction.state.log.replication.factor=1",
    "transaction.state.log.min.isr=1",
    "group.initial.rebalance.delay.ms=0",
    "auto.create.topics.enable=true",
    "",
  ].join("\n");
}

async function start() {
  fetchJars();
  const pid = running();
  if (pid && (await reachable(port))) {
    say(`already running (pid ${pid})`);
    process.stdout.write(`KAFKA_BROKERS=127.0.0.1:${port}\n`);
    return;
  }
  mkdirSync(home, { recursive: true });
  const props = path.join(home, `server-${port}.properties`);
  writeFileSync(props, config());
  const cp = `${libs}/*`;
  const log4j = `-Dlog4j.configuration=file:${path.join(root, "scripts/kafka/log4j.properties")}`;
  if (!existsSync(path.join(dataDir, "meta.properties"))) {
    const clusterId = execFileSync(java, ["-cp", cp, log4j, "kafka.tools.StorageTool", "random-uuid"], {
      encoding: "utf8",
    })
      .trim()
      .split("\n")
      .pop();
    execFileSync(
      java,
      ["-cp", cp, log4j, "kafka.tools.StorageTool", "format", "-t", clusterId, "-c", props],
      { stdio: ["ignore", "ignore", "inherit"] },
    );
  }
  const out = openSync(logFile, "a");
  const child = spawn(
    java,
    ["-Xms256m", "-Xmx768m", "-XX:+UseG1GC", "-cp", cp, log4j, "kafka.Kafka", props],
    {
      detached: true,
      stdio: ["ignore", out, out],
    },
  );
  child.unref();
  writeFileSync(pidFile, String(child.pid));
  const deadline = Date.now() + 60_000;
  while (!(await reachable(port))) {
    if (Date.now() > deadline || !running()) {
      say(`the broker did not start; see ${logFile}`);
      process.exit(1);
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  say(`started (pid ${child.pid}, data in ${dataDir}, log in ${logFile})`);
  say(`Kafka's tools are in ${bin} (kafka-console-consumer and others)`);
  process.stdout.write(`KAFKA_BROKERS=127.0.0.1:${port}\n`);
}

async function stop() {
  const pid = running();
  if (!pid) {
    say("not running");
    return;
  }
  process.kill(pid, "SIGTERM");
  const deadline = Date.now() + 30_000;
  while (running()) {
    if (Date.now() > deadline) process.kill(pid, "SIGKILL");
    await new Promise((r) => setTimeout(r, 200));
  }
  rmSync(pidFile, { force: true });
  say(`stopped (pid ${pid})`);
}

const command = process.argv[2] ?? "start";
if (command === "start") await start();
else if (command === "stop") await stop();
else if (command === "status") {
  const pid = running();
  process.stdout.write(pid ? `running (pid ${pid}) on 127.0.0.1:${port}\n` : "not running\n");
} else {
  say(`unknown command "${command}"; use start, stop or status`);
  process.exit(2);
}
