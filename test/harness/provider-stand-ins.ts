/**
 * Stand-ins of the video providers' player APIs (the providers are outside the system and the network
 * is closed), served by `serveProviderScript`: just what the adapters read, with a clock, states,
 * volume and rate. The `window.__fakeYT` / `window.__fakeVimeo` hooks act like a participant using
 * the controls inside the provider's iframe, which the page cannot see; they also record when the
 * adapter reads the player's state (`polls` / `reads`, counted by `readCount()`) and the playhead it
 * read then, so a test expects what the adapter saw rather than what its sleeps suggest: a seek
 * answers the playhead it jumped `from` and the one the adapter last read (`lastRead`), and `played()`
 * is the playing time the player advanced, seeks left out.
 */

/** YouTube's iframe API (`YT.Player`); the video ends after `durationS` of playing. */
export const youtubeStandIn = (durationS = 30) => `
(function () {
  var players = [];
  var polls = [];
  var positions = [];
  function Player(el, opts) {
    var target = typeof el === "string" ? document.getElementById(el) : el;
    this.frame = document.createElement("div");
    this.frame.setAttribute("data-fake-youtube", opts.videoId);
    this.frame.style.cssText = "width:100%;height:100%;background:#202124;color:#fff;display:grid;place-items:center";
    this.frame.textContent = "Stand-in YouTube player: " + opts.videoId;
    target.replaceWith(this.frame);
    this.events = opts.events || {};
    this.state = -1; this.time = 0; this.base = performance.now(); this.rate = 1; this.played = 0;
    this.volume = 100; this.muted = false; this.duration = ${durationS};
    var self = this;
    players.push(this);
    setTimeout(function () {
      if (self.events.onReady) self.events.onReady({ target: self });
      if (opts.playerVars && opts.playerVars.autoplay) self.playVideo();
    }, 50);
    this.ender = setInterval(function () {
      if (self.state === 1 && self.now() >= self.duration) { self.freeze(); self.setState(0); }
    }, 50);
  }
  Player.prototype.now = function () {
    return this.state === 1 ? Math.min(this.duration, this.time + ((performance.now() - this.base) / 1000) * this.rate) : this.time;
  };
  Player.prototype.freeze = function () {
    var t = this.now();
    if (this.state === 1) this.played += t - this.time;
    this.time = t; this.base = performance.now();
  };
  Player.prototype.setState = function (s) {
    this.freeze(); this.state = s;
    if (this.events.onStateChange) this.events.onStateChange({ data: s, target: this });
  };
  Player.prototype.playVideo = function () { this.setState(1); };
  Player.prototype.pauseVideo = function () { this.setState(2); };
  Player.prototype.seekTo = function (s) { this.freeze(); this.time = s; };
  Player.prototype.getCurrentTime = function () { return this.now(); };
  Player.prototype.getDuration = function () { return this.duration; };
  Player.prototype.getPlayerState = function () {
    polls.push(performance.now()); positions.push(this.now()); return this.state;
  };
  Player.prototype.getVolume = function () { return this.volume; };
  Player.prototype.setVolume = function (v) { this.volume = v; };
  Player.prototype.isMuted = function () { return this.muted; };
  Player.prototype.mute = function () { this.muted = true; };
  Player.prototype.unMute = function () { this.muted = false; };
  Player.prototype.getPlaybackRate = function () { return this.rate; };
  Player.prototype.setPlaybackRate = function (r) {
    this.freeze(); this.rate = r;
    if (this.events.onPlaybackRateChange) this.events.onPlaybackRateChange({ data: r });
  };
  Player.prototype.getIframe = function () { return this.frame; };
  Player.prototype.destroy = function () { clearInterval(this.ender); this.frame.remove(); };
  window.YT = { Player: Player, PlayerState: { UNSTARTED: -1, ENDED: 0, PLAYING: 1, PAUSED: 2, BUFFERING: 3, CUED: 5 } };
  // What a participant does inside the provider's iframe: no callback tells the page about seeks,
  // volume or rate (only state changes have one), so the adapter must notice them by polling.
  window.__fakeYT = {
    players: players,
    polls: polls,
    current: function () { return players[players.length - 1]; },
    seek: function (s) {
      var p = players[players.length - 1];
      var jump = { from: p.now(), lastRead: positions[positions.length - 1] };
      p.seekTo(s);
      return jump;
    },
    played: function () { var p = players[players.length - 1]; p.freeze(); return p.played; },
    volume: function (v) { players[players.length - 1].volume = v; },
    rate: function (r) { var p = players[players.length - 1]; p.freeze(); p.rate = r; },
    pause: function () { players[players.length - 1].pauseVideo(); },
    play: function () { players[players.length - 1].playVideo(); },
    playing: function () { var p = players[players.length - 1]; return !!p && p.state === 1; },
    readCount: function () { return polls.length; },
    buffer: function (ms) {
      var p = players[players.length - 1];
      p.setState(3);
      setTimeout(function () { p.setState(1); }, ms);
    },
  };
  setTimeout(function () { if (window.onYouTubeIframeAPIReady) window.onYouTubeIframeAPIReady(); }, 0);
})();
`;

/**
 * Vimeo's Player API (player.js): `Vimeo.Player(iframe)` with promise getters and `on` for the API's
 * events; `quietSeek` moves the playhead without an event, which only polling can notice.
 */
export const vimeoStandIn = (durationS = 30) => `
(function () {
  var players = [];
  var reads = [];
  var positions = [];
  function Player(iframe) {
    this.iframe = iframe;
    this.handlers = {};
    this.playing = false; this.ended = false; this.time = 0; this.base = performance.now();
    this.rate = 1; this.volume = 1; this.duration = ${durationS}; this.played = 0;
    var self = this;
    players.push(this);
    this.readyPromise = new Promise(function (resolve) { setTimeout(resolve, 50); }).then(function () {
      if (/autoplay=1/.test(iframe.src)) self.play();
    });
    this.ender = setInterval(function () {
      if (self.playing && self.now() >= self.duration) {
        self.freeze(); self.playing = false; self.ended = true;
        self.emit("ended", { seconds: self.duration, duration: self.duration, percent: 1 });
      } else if (self.playing) {
        self.emit("timeupdate", { seconds: self.now(), duration: self.duration, percent: self.now() / self.duration });
      }
    }, 250);
  }
  Player.prototype.now = function () {
    return this.playing ? Math.min(this.duration, this.time + ((performance.now() - this.base) / 1000) * this.rate) : this.time;
  };
  Player.prototype.freeze = function () {
    var t = this.now();
    if (this.playing) this.played += t - this.time;
    this.time = t; this.base = performance.now();
  };
  Player.prototype.emit = function (name, data) {
    (this.handlers[name] || []).forEach(function (cb) { cb(data); });
  };
  Player.prototype.on = function (name, cb) { (this.handlers[name] = this.handlers[name] || []).push(cb); };
  Player.prototype.ready = function () { return this.readyPromise; };
  Player.prototype.play = function () {
    this.freeze(); this.playing = true; this.ended = false;
    this.emit("play", { seconds: this.time }); return Promise.resolve();
  };
  Player.prototype.pause = function () {
    this.freeze(); this.playing = false;
    this.emit("pause", { seconds: this.time }); return Promise.resolve();
  };
  Player.prototype.setCurrentTime = function (s) {
    this.freeze(); this.time = s; this.emit("seeked", { seconds: s }); return Promise.resolve(s);
  };
  Player.prototype.getCurrentTime = function () {
    var t = this.now();
    reads.push(performance.now()); positions.push(t); return Promise.resolve(t);
  };
  Player.prototype.getDuration = function () { return Promise.resolve(this.duration); };
  Player.prototype.getPaused = function () { return Promise.resolve(!this.playing); };
  Player.prototype.getEnded = function () { return Promise.resolve(this.ended); };
  Player.prototype.getVolume = function () { return Promise.resolve(this.volume); };
  Player.prototype.setVolume = function (v) { this.volume = v; this.emit("volumechange", { volume: v }); return Promise.resolve(v); };
  Player.prototype.getPlaybackRate = function () { return Promise.resolve(this.rate); };
  Player.prototype.setPlaybackRate = function (r) {
    this.freeze(); this.rate = r; this.emit("playbackratechange", { playbackRate: r }); return Promise.resolve(r);
  };
  Player.prototype.destroy = function () { clearInterval(this.ender); return Promise.resolve(); };
  window.Vimeo = { Player: Player };
  function current() { return players[players.length - 1]; }
  window.__fakeVimeo = {
    reads: reads,
    seek: function (s) {
      var p = current();
      var jump = { from: p.now(), lastRead: positions[positions.length - 1] };
      p.setCurrentTime(s);
      return jump;
    },
    quietSeek: function (s) {
      var p = current();
      var jump = { from: p.now(), lastRead: positions[positions.length - 1] };
      p.freeze(); p.time = s;
      return jump;
    },
    played: function () { var p = current(); p.freeze(); return p.played; },
    volume: function (v) { current().setVolume(v); },
    rate: function (r) { current().setPlaybackRate(r); },
    pause: function () { current().pause(); },
    play: function () { current().play(); },
    playing: function () { return !!current() && current().playing; },
    readCount: function () { return reads.length; },
    buffer: function (ms) {
      var p = current();
      p.emit("bufferstart", {});
      setTimeout(function () { p.emit("bufferend", {}); }, ms);
    },
  };
})();
`;
