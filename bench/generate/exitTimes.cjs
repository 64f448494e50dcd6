// Preloaded (node --require) into a process the map bench times: when it exits, its time since
// the process began and its CPU time (every thread's) go to stderr as one JSON line.
const { writeSync } = require('node:fs');

process.on('exit', () => {
  const usage = process.resourceUsage();
  writeSync(2, `\nexit times ${JSON.stringify({ ms: performance.now(), cpuMs: (usage.userCPUTime + usage.systemCPUTime) / 1000 })}\n`);
});
