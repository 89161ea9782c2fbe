// Bundle entry for the init script (runs once per document, before page scripts).
import { installClosedShadowRecorder } from './closed-shadow.js';
import { installFailedSheetRecorder } from './failed-sheets.js';

installClosedShadowRecorder();
installFailedSheetRecorder();
