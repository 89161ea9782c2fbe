import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Preferences written to the profile's user.js before Firefox starts. The remote agent applies its
 * own recommended preferences too late: a fresh profile has already contacted the remote-settings,
 * update and safe-browsing hosts by then. These keep every background service of Firefox off the
 * network (services.settings.server is honoured by ESR only with MOZ_REMOTE_SETTINGS_DEVTOOLS=1 in
 * the environment, see launch.ts), and make the browser behave as the engine expects of Chromium
 * (popups allowed, downloads into the work directory, no first-run pages).
 */
const QUIET: Record<string, string | number | boolean> = {
  // Updates, add-ons, studies, telemetry.
  'app.update.disabledForTesting': true,
  'app.update.auto': false,
  'app.update.checkInstallTime': false,
  'app.normandy.enabled': false,
  'app.normandy.api_url': '',
  'app.shield.optoutstudies.enabled': false,
  'extensions.update.enabled': false,
  'extensions.update.notifyUser': false,
  'extensions.getAddons.cache.enabled': false,
  'extensions.blocklist.enabled': false,
  'extensions.systemAddon.update.enabled': false,
  'extensions.systemAddon.update.url': '',
  'extensions.webservice.discoverURL': '',
  'datareporting.healthreport.uploadEnabled': false,
  'datareporting.policy.dataSubmissionEnabled': false,
  'datareporting.usage.uploadEnabled': false,
  'toolkit.telemetry.enabled': false,
  'toolkit.telemetry.unified': false,
  'toolkit.telemetry.archive.enabled': false,
  'toolkit.telemetry.server': 'data:,',
  'toolkit.telemetry.shutdownPingSender.enabled': false,
  'toolkit.telemetry.firstShutdownPing.enabled': false,
  'toolkit.telemetry.newProfilePing.enabled': false,
  'toolkit.telemetry.updatePing.enabled': false,
  'toolkit.telemetry.bhrPing.enabled': false,
  'browser.ping-centre.telemetry': false,
  'browser.crashReports.unsubmittedCheck.autoSubmit2': false,
  'breakpad.reportURL': '',
  // Remote settings (blocklists, CRLite, …), served by nobody.
  'services.settings.server': 'data:,#remote-settings-dummy/v1',
  'security.remote_settings.crlite_filters.enabled': false,
  'security.remote_settings.intermediates.enabled': false,
  'security.OCSP.enabled': 0,
  'security.certerrors.mitm.priming.enabled': false,
  // Safe browsing and tracking-protection lists.
  'browser.safebrowsing.malware.enabled': false,
  'browser.safebrowsing.phishing.enabled': false,
  'browser.safebrowsing.downloads.enabled': false,
  'browser.safebrowsing.downloads.remote.enabled': false,
  'browser.safebrowsing.blockedURIs.enabled': false,
  'browser.safebrowsing.passwords.enabled': false,
  'browser.safebrowsing.update.enabled': false,
  'browser.safebrowsing.provider.google.updateURL': '',
  'browser.safebrowsing.provider.google4.updateURL': '',
  'browser.safebrowsing.provider.mozilla.updateURL': '',
  'privacy.trackingprotection.enabled': false,
  'privacy.trackingprotection.pbmode.enabled': false,
  // Connectivity probes, captive portal, DNS over HTTPS, prefetching, push, region lookups.
  'network.captive-portal-service.enabled': false,
  'network.connectivity-service.enabled': false,
  'network.trr.mode': 5,
  'network.dns.disablePrefetch': true,
  'network.prefetch-next': false,
  'network.predictor.enabled': false,
  'network.http.speculative-parallel-limit': 0,
  'dom.push.enabled': false,
  'dom.push.connection.enabled': false,
  'dom.push.serverURL': '',
  'browser.region.network.url': '',
  'browser.region.update.enabled': false,
  'browser.search.geoip.url': '',
  'browser.search.update': false,
  'geo.provider.network.url': '',
  'geo.provider.use_gpsd': false,
  'media.gmp-manager.url': '',
  // The media plugins' (GMP) update check, one of the idle tasks Firefox runs once the user has been
  // idle for 20 s: with the URL above empty it falls back to its built-in list and asks Chrome's
  // update service for Widevine (update.googleapis.com, found by test/browser-egress.test.ts when a
  // slow run kept Firefox up that long). This switch ends the check before any request is made.
  'media.gmp-manager.updateEnabled': false,
  'media.gmp-widevinecdm.allow-chromium-update': false,
  'media.gmp-gmpopenh264.enabled': false,
  'media.gmp-widevinecdm.enabled': false,
  'identity.fxaccounts.enabled': false,
  'browser.discovery.enabled': false,
  'browser.topsites.contile.enabled': false,
  'browser.newtabpage.enabled': false,
  'browser.newtabpage.activity-stream.feeds.system.topstories': false,
  'browser.newtabpage.activity-stream.feeds.snippets': false,
  'browser.newtabpage.activity-stream.telemetry': false,
  'browser.urlbar.suggest.quicksuggest.sponsored': false,
  'browser.urlbar.quicksuggest.enabled': false,
  'browser.contentblocking.report.lockwise.enabled': false,
  'browser.uitour.enabled': false,
  'browser.aboutHomeSnippets.updateUrl': '',
  'signon.management.page.breach-alerts.enabled': false,
  'browser.translations.enable': false,
  'extensions.pocket.enabled': false,
  'network.cookie.sameSite.laxByDefault': false,
  // First run, session restore, default-browser checks.
  'browser.shell.checkDefaultBrowser': false,
  'browser.startup.homepage': 'about:blank',
  'browser.startup.page': 0,
  'browser.startup.homepage_override.mstone': 'ignore',
  'startup.homepage_welcome_url': 'about:blank',
  'startup.homepage_welcome_url.additional': '',
  'browser.aboutwelcome.enabled': false,
  'browser.sessionstore.resume_from_crash': false,
  'toolkit.startup.max_resumed_crashes': -1,
  'browser.tabs.warnOnClose': false,
  'browser.warnOnQuit': false,
  'datareporting.policy.firstRunURL': '',
  // Behaviour the engine expects (as in Chromium under tabwright).
  'dom.disable_open_during_load': false,
  'dom.disable_beforeunload': false,
  'browser.download.folderList': 2,
  'browser.download.useDownloadDir': true,
  'browser.download.always_ask_before_handling_new_types': false,
  'browser.download.manager.showWhenStarting': false,
  'browser.download.start_downloads_in_tmp_dir': false,
  'browser.download.open_pdf_attachments_inline': false,
  'pdfjs.disabled': true,
  // No favicon requests (Chromium headless sends none): request logs and network-idle waits match.
  'browser.chrome.site_icons': false,
  // A proxy must see loopback destinations too: the origin policy names loopback origins.
  'network.proxy.allow_hijacking_localhost': true,
  'network.proxy.no_proxies_on': '',
  // WebRTC under a proxy only through it (no UDP around the policy proxy).
  'media.peerconnection.ice.proxy_only_if_behind_proxy': true,
  'media.peerconnection.ice.default_address_only': true,
  'media.peerconnection.ice.no_host': true,
  'media.navigator.permission.disabled': true,
  'remote.prefs.recommended': true,
};

export interface ProfilePrefOptions {
  downloadsDir?: string;
  /** A persistent profile's proxy (`http://127.0.0.1:PORT`): user contexts take theirs over BiDi. */
  proxyServer?: string;
}

/** Writes user.js into the profile (replacing an older one of ours). */
export function writeProfilePrefs(profileDir: string, opts: ProfilePrefOptions = {}): void {
  const prefs: Record<string, string | number | boolean> = { ...QUIET };
  if (opts.downloadsDir) prefs['browser.download.dir'] = opts.downloadsDir;
  if (opts.proxyServer) {
    const u = new URL(opts.proxyServer);
    prefs['network.proxy.type'] = 1;
    prefs['network.proxy.http'] = u.hostname;
    prefs['network.proxy.http_port'] = Number(u.port);
    prefs['network.proxy.ssl'] = u.hostname;
    prefs['network.proxy.ssl_port'] = Number(u.port);
    prefs['network.proxy.share_proxy_settings'] = true;
  } else {
    prefs['network.proxy.type'] = 0;
  }
  const lines = Object.entries(prefs).map(
    ([k, v]) => `user_pref(${JSON.stringify(k)}, ${JSON.stringify(v)});`,
  );
  writeFileSync(
    join(profileDir, 'user.js'),
    `// Written by tabwright before each start.\n${lines.join('\n')}\n`,
  );
}
