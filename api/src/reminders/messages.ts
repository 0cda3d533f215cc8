/**
 * The reminders' texts, in the languages the participant pages speak (web/src/participant/messages):
 * a participant reads theirs, or English. `{study}`, `{session}`, `{left}` (how long the window stays
 * open, in words) are filled in; links come after the text. Times are given as durations, not clock
 * times: the server does not know the participant's time zone, and "within 23 hours" reads the same
 * everywhere.
 */
interface Catalogue {
  readonly subjectOpen: string;
  readonly subjectClose: string;
  readonly open: string;
  readonly close: string;
  readonly link: string;
  readonly why: string;
  readonly unsubscribe: string;
  readonly unsubscribed: string;
}

const CATALOGUES: Readonly<Record<string, Catalogue>> = {
  en: {
    subjectOpen: "{study}: session {session} is open",
    subjectClose: "{study}: session {session} closes soon",
    open: "Hello,\n\nsession {session} of the study “{study}” is open now. Please take part within {left}: once it closes, the study ends for you.",
    close:
      "Hello,\n\nsession {session} of the study “{study}” closes in {left}. Please take part before then: once it closes, the study ends for you.",
    link: "Continue the study:",
    why: "You receive this message because you gave your address for reminders when you joined this study.",
    unsubscribe: "No more reminders:",
    unsubscribed:
      "You will get no more reminders from this study. You can still take part with your study link.",
  },
  de: {
    subjectOpen: "{study}: Sitzung {session} ist geöffnet",
    subjectClose: "{study}: Sitzung {session} schließt bald",
    open: "Hallo,\n\nSitzung {session} der Studie „{study}“ ist jetzt geöffnet. Bitte nehmen Sie innerhalb von {left} teil: danach endet die Studie für Sie.",
    close:
      "Hallo,\n\nSitzung {session} der Studie „{study}“ schließt in {left}. Bitte nehmen Sie vorher teil: danach endet die Studie für Sie.",
    link: "Studie fortsetzen:",
    why: "Sie erhalten diese Nachricht, weil Sie bei der Anmeldung Ihre Adresse für Erinnerungen angegeben haben.",
    unsubscribe: "Keine Erinnerungen mehr:",
    unsubscribed:
      "Sie erhalten keine Erinnerungen mehr zu dieser Studie. Mit Ihrem Studienlink können Sie weiterhin teilnehmen.",
  },
  fr: {
    subjectOpen: "{study} : la session {session} est ouverte",
    subjectClose: "{study} : la session {session} ferme bientôt",
    open: "Bonjour,\n\nla session {session} de l’étude « {study} » est ouverte. Merci d’y participer dans les {left} : une fois fermée, l’étude se termine pour vous.",
    close:
      "Bonjour,\n\nla session {session} de l’étude « {study} » ferme dans {left}. Merci d’y participer avant : une fois fermée, l’étude se termine pour vous.",
    link: "Continuer l’étude :",
    why: "Vous recevez ce message parce que vous avez donné votre adresse pour des rappels en rejoignant cette étude.",
    unsubscribe: "Ne plus recevoir de rappels :",
    unsubscribed:
      "Vous ne recevrez plus de rappels de cette étude. Vous pouvez toujours y participer avec votre lien.",
  },
  es: {
    subjectOpen: "{study}: la sesión {session} está abierta",
    subjectClose: "{study}: la sesión {session} cierra pronto",
    open: "Hola:\n\nla sesión {session} del estudio «{study}» ya está abierta. Participe en las próximas {left}: cuando cierre, el estudio termina para usted.",
    close:
      "Hola:\n\nla sesión {session} del estudio «{study}» cierra en {left}. Participe antes: cuando cierre, el estudio termina para usted.",
    link: "Continuar el estudio:",
    why: "Recibe este mensaje porque dio su dirección para recordatorios al unirse a este estudio.",
    unsubscribe: "No recibir más recordatorios:",
    unsubscribed:
      "No recibirá más recordatorios de este estudio. Puede seguir participando con su enlace del estudio.",
  },
  nl: {
    subjectOpen: "{study}: sessie {session} is geopend",
    subjectClose: "{study}: sessie {session} sluit binnenkort",
    open: "Hallo,\n\nsessie {session} van het onderzoek ‘{study}’ is nu geopend. Doe binnen {left} mee: daarna eindigt het onderzoek voor u.",
    close:
      "Hallo,\n\nsessie {session} van het onderzoek ‘{study}’ sluit over {left}. Doe daarvoor mee: daarna eindigt het onderzoek voor u.",
    link: "Verder met het onderzoek:",
    why: "U ontvangt dit bericht omdat u bij deelname uw adres voor herinneringen hebt opgegeven.",
    unsubscribe: "Geen herinneringen meer:",
    unsubscribed:
      "U ontvangt geen herinneringen meer voor dit onderzoek. U kunt nog steeds meedoen via uw onderzoekslink.",
  },
  ar: {
    subjectOpen: "{study}: الجلسة {session} مفتوحة",
    subjectClose: "{study}: الجلسة {session} تُغلق قريبًا",
    open: "مرحبًا،\n\nالجلسة {session} من دراسة «{study}» مفتوحة الآن. يُرجى المشاركة خلال {left}: بعد إغلاقها تنتهي الدراسة بالنسبة لك.",
    close:
      "مرحبًا،\n\nتُغلق الجلسة {session} من دراسة «{study}» بعد {left}. يُرجى المشاركة قبل ذلك: بعد إغلاقها تنتهي الدراسة بالنسبة لك.",
    link: "متابعة الدراسة:",
    why: "تصلك هذه الرسالة لأنك قدّمت عنوانك لتلقي التذكيرات عند انضمامك إلى هذه الدراسة.",
    unsubscribe: "إيقاف التذكيرات:",
    unsubscribed: "لن تصلك تذكيرات أخرى من هذه الدراسة. لا يزال بإمكانك المشاركة عبر رابط الدراسة.",
  },
  "zh-Hans": {
    subjectOpen: "{study}：第 {session} 次会话已开放",
    subjectClose: "{study}：第 {session} 次会话即将关闭",
    open: "您好：\n\n研究“{study}”的第 {session} 次会话现已开放。请在 {left}内参加：关闭后，研究对您即告结束。",
    close:
      "您好：\n\n研究“{study}”的第 {session} 次会话将在 {left}后关闭。请在此之前参加：关闭后，研究对您即告结束。",
    link: "继续研究：",
    why: "您收到此消息，是因为您在加入本研究时留下了接收提醒的地址。",
    unsubscribe: "不再接收提醒：",
    unsubscribed: "您将不再收到本研究的提醒。您仍可通过研究链接参加。",
  },
};

const catalogueFor = (language: string): Catalogue =>
  CATALOGUES[language] ?? CATALOGUES[language.split("-")[0] ?? ""] ?? (CATALOGUES.en as Catalogue);

/** What the unsubscribe page says, in the participant's language. */
export const unsubscribedText = (language: string): string => catalogueFor(language).unsubscribed;

/** A duration in the language's words ("23 hours", "5 minutes"), rounded down, at least a minute. */
function durationIn(language: string, ms: number): string {
  const minutes = Math.max(1, Math.floor(ms / 60_000));
  const [value, unit] =
    minutes >= 2 * 24 * 60
      ? [Math.floor(minutes / (24 * 60)), "day"]
      : minutes >= 120
        ? [Math.floor(minutes / 60), "hour"]
        : [minutes, "minute"];
  const lang = CATALOGUES[language] ? language : "en";
  return new Intl.NumberFormat(lang, { style: "unit", unit, unitDisplay: "long" }).format(value);
}

/** A reminder: what it says, and the links it holds. */
export interface Reminder {
  readonly kind: "open" | "close";
  readonly language: string;
  readonly study: string;
  readonly session: number;
  /** How long the window stays open from now. */
  readonly leftMs: number;
  readonly returnUrl: string;
  readonly unsubscribeUrl: string;
}

const fill = (text: string, values: Readonly<Record<string, string>>) =>
  text.replace(/\{(\w+)\}/g, (whole, name: string) => values[name] ?? whole);

/** The message in the participant's language: subject and plain text. */
export function reminderMessage(r: Reminder): { subject: string; text: string } {
  const c = catalogueFor(r.language);
  const values = {
    study: r.study,
    session: String(r.session),
    left: durationIn(r.language, r.leftMs),
  };
  return {
    subject: fill(r.kind === "open" ? c.subjectOpen : c.subjectClose, values),
    text: [
      fill(r.kind === "open" ? c.open : c.close, values),
      "",
      c.link,
      r.returnUrl,
      "",
      "--",
      c.why,
      `${c.unsubscribe} ${r.unsubscribeUrl}`,
      "",
    ].join("\n"),
  };
}
