/*
 * The media type of an upload from its file name, for Upload media for an agent message (v2)
 * when the caller gives none: the extensions of the types the emulator accepts (AGENT_MEDIA_TYPES
 * in the operations table), anything else application/octet-stream.
 */

const BY_EXTENSION: Readonly<Record<string, string>> = {
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  png: 'image/png',
  webp: 'image/webp',
  gif: 'image/gif',
  mp4: 'video/mp4',
  '3gp': 'video/3gpp',
  mp3: 'audio/mpeg',
  m4a: 'audio/mp4',
  aac: 'audio/aac',
  ogg: 'audio/ogg',
  opus: 'audio/ogg',
  amr: 'audio/amr',
  pdf: 'application/pdf',
  txt: 'text/plain',
};

/** The media type a file name's extension says, else `application/octet-stream`. */
export function contentTypeOf(fileName: string): string {
  const dot = fileName.lastIndexOf('.');
  const extension = dot < 0 ? '' : fileName.slice(dot + 1).toLowerCase();
  return BY_EXTENSION[extension] ?? 'application/octet-stream';
}
