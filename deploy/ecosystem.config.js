// PM2 process file for the zylos-memory scheduler (the memory service).
// Install: make install && pm2 start deploy/ecosystem.config.js && pm2 save
const path = require('path');
const os = require('os');

const home = os.homedir();

module.exports = {
  apps: [
    {
      name: 'zylos-memory',
      script: path.join(home, '.local', 'bin', 'zylos-memory'),
      args: ['scheduler', 'run'],
      interpreter: 'none', // a Go binary, not a Node script
      env: {
        ZYLOS_DIR: process.env.ZYLOS_DIR || path.join(home, 'zylos'),
      },
      autorestart: true,
      restart_delay: 5000,
      // The first SIGINT lets the run in progress finish.
      kill_timeout: 30000,
    },
  ],
};
