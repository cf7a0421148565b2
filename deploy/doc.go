// Package deploy holds the files that keep the scheduler running as a
// service: a systemd user unit and a PM2 process file. Its tests check
// their syntax and that the command they start exists.
package deploy
