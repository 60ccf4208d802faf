/** The GitLab API level this server mirrors, and forgegate's own version. */
export const APP_VERSION = '17.9.0-forgegate';
export const APP_REVISION = '0.1.0';
