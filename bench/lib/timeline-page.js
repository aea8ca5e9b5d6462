/* global window, document, requestAnimationFrame, location, getComputedStyle */
// The in-page half of bench/timeline.bench.ts, installed with page.addInitScript before the app
// loads. Plain browser JavaScript: bench/ is type-checked for Node (no DOM lib), and a function
// shipped from tsx would carry its __name helpers into the page.
//
// It only listens to the app (User Timing, requestAnimationFrame, PerformanceObserver); the one
// hook is a wrapper around performance.measure that notes, for each `earmark:timeline-draw`,
// when the next frame starts (rAF) and when that frame has been produced (a message posted from
// the rAF callback runs after the frame's paint and commit). The app itself is unchanged.
(() => {
  const draws = [];
  const longTasks = [];

  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      longTasks.push({ startTime: entry.startTime, duration: entry.duration });
    }
  }).observe({ type: 'longtask', buffered: true });

  const measure = performance.measure.bind(performance);
  performance.measure = (...args) => {
    const entry = measure(...args);
    if (args[0] === 'earmark:timeline-draw' && entry) {
      const draw = {
        startTime: entry.startTime,
        duration: entry.duration,
        slots: entry.detail?.slots ?? null,
        frameAt: null,
        paintedAt: null,
      };
      draws.push(draw);
      requestAnimationFrame(() => {
        draw.frameAt = performance.now();
        const channel = new MessageChannel();
        channel.port1.onmessage = () => {
          draw.paintedAt = performance.now();
          channel.port1.close();
        };
        channel.port2.postMessage(null);
      });
    }
    return entry;
  };

  const nextFrame = () => new Promise((resolve) => requestAnimationFrame(resolve));
  const wait = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

  let frames = null;

  window.__earmarkBench = {
    drawCount: () => draws.length,
    draws: (from = 0) => draws.slice(from),
    longTasks: (from = 0, to = Infinity) =>
      longTasks.filter((t) => t.startTime + t.duration >= from && t.startTime <= to),
    lastMark: (name) => {
      const marks = performance.getEntriesByName(name, 'mark');
      const mark = marks[marks.length - 1];
      return mark ? { startTime: mark.startTime, detail: mark.detail } : null;
    },

    /** Clicks `button` `count` times, a frame apart; returns the draw measures it caused. */
    async redraw(button, count) {
      const from = draws.length;
      for (let i = 0; i < count; i++) {
        button.click();
        await nextFrame();
        await nextFrame();
      }
      return draws.slice(from).map((d) => ({ duration: d.duration, slots: d.slots }));
    },

    /**
     * The baseline drawing: the same minutes, one fillRect per minute with a fillStyle change
     * each, on a detached canvas the size of the app's, timed the same way (JavaScript time of the
     * drawing calls; the canvas is resized before each run, as the app does, outside the timing).
     */
    async naiveDraw(appCanvas, minutes, count) {
      const style = getComputedStyle(appCanvas);
      const colour = {
        speech: style.getPropertyValue('--color-speech').trim(),
        silence: style.getPropertyValue('--color-silence').trim(),
        'no-data': style.getPropertyValue('--color-no-data').trim(),
      };
      const canvas = document.createElement('canvas');
      const durations = [];
      for (let run = 0; run < count; run++) {
        canvas.width = appCanvas.width;
        canvas.height = appCanvas.height;
        const context = canvas.getContext('2d');
        const { width, height } = canvas;
        const barWidth = width / minutes.length;
        const start = performance.now();
        context.clearRect(0, 0, width, height);
        for (let i = 0; i < minutes.length; i++) {
          const minute = minutes[i];
          context.fillStyle = colour[minute.state];
          const barHeight =
            minute.state === 'no-data'
              ? height
              : minute.state === 'silence'
                ? 2
                : Math.max(4, (minute.speechMs / 60_000) * height);
          context.fillRect(i * barWidth, height - barHeight, barWidth, barHeight);
        }
        durations.push(performance.now() - start);
        await nextFrame();
      }
      return durations;
    },

    /** The day's minutes as the service returns them, over the app's own IPC socket. */
    async dayMinutes(deviceName, startMs, endMs) {
      // The shell's token, where the page keeps it (src/renderer/src/shell-session.ts), offered
      // as the renderer's bridge offers it (SHELL_RPC_PROTOCOL, SHELL_TOKEN_PROTOCOL_PREFIX).
      const token = localStorage.getItem('earmark.shell-token');
      const socket = new WebSocket(
        `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/rpc`,
        ['earmark.rpc', `earmark-token.${token}`],
      );
      await new Promise((resolve, reject) => {
        socket.addEventListener('open', resolve, { once: true });
        socket.addEventListener('error', reject, { once: true });
      });
      let id = 0;
      const call = (channel, input) =>
        new Promise((resolve, reject) => {
          const callId = ++id;
          const onMessage = (message) => {
            const data = JSON.parse(String(message.data));
            if (data.id !== callId) return;
            socket.removeEventListener('message', onMessage);
            if (data.result.ok) resolve(data.result.value);
            else reject(new Error(`${channel}: ${data.result.error.message}`));
          };
          socket.addEventListener('message', onMessage);
          socket.send(JSON.stringify({ id: callId, channel, input }));
        });
      try {
        const { value: devices } = await call('devices.list', {});
        const device = devices.find((d) => d.displayName === deviceName);
        if (!device) throw new Error(`no device named ${deviceName}`);
        const { minutes } = (await call('hub.minutes', { deviceId: device.value, startMs, endMs }))
          .value;
        const byStart = new Map(minutes.map((m) => [m.minuteStartMs, m]));
        const slots = [];
        for (let t = startMs; t < endMs; t += 60_000) {
          const m = byStart.get(t);
          slots.push(
            m === undefined
              ? { state: 'no-data', speechMs: 0 }
              : { state: m.vadIsSilent ? 'silence' : 'speech', speechMs: m.vadSpeechDurationMs },
          );
        }
        return slots;
      } finally {
        socket.close();
      }
    },

    /**
     * Starts recording animation frames. Per frame: its start, the rAF timestamp (the vsync it is
     * for), and its end, when a message posted from the rAF callback arrives: after the frame's
     * input handlers, rAF callbacks, style, layout, paint and commit. The frame's time is end −
     * start. Not the interval between rAF timestamps: Chromium runs a late frame with the
     * timestamp of the vsync it missed, so those intervals stay near 16.7 ms while the main thread
     * is 20 ms late on every frame.
     */
    startFrames() {
      const record = { frames: [], running: true, startedAt: performance.now() };
      const tick = (stamp) => {
        const frame = { start: stamp, end: null };
        record.frames.push(frame);
        const channel = new MessageChannel();
        channel.port1.onmessage = () => {
          frame.end = performance.now();
          channel.port1.close();
        };
        channel.port2.postMessage(null);
        if (record.running) requestAnimationFrame(tick);
      };
      requestAnimationFrame(tick);
      frames = record;
    },

    /** Stops the recording: each finished frame's time, and the long tasks meanwhile. */
    stopFrames() {
      const record = frames;
      record.running = false;
      frames = null;
      const endedAt = performance.now();
      const done = record.frames.filter((f) => f.end !== null);
      const intervals = [];
      for (let i = 1; i < done.length; i++) intervals.push(done[i].end - done[i - 1].end);
      return {
        frameTimes: done.map((f) => f.end - f.start),
        intervals,
        elapsed: endedAt - record.startedAt,
        longTasks: window.__earmarkBench.longTasks(record.startedAt, endedAt),
      };
    },

    /** Records frames for `ms` with nothing else going on. */
    async idleFrames(ms) {
      window.__earmarkBench.startFrames();
      await wait(ms);
      return window.__earmarkBench.stopFrames();
    },
  };
})();
