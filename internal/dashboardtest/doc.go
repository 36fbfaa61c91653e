// Package dashboardtest holds the end-to-end test of the embedded dashboard
// (GET /): it builds and starts the real mdqs binary, drives headless
// Chromium through the Chrome DevTools Protocol with chromedp, and checks
// that the dashboard logs in, signs its requests and renders its charts. It
// has no non-test code besides this comment.
package dashboardtest
