/** The part of busboy 1.x that src/api/upload.ts uses; the package ships no types. */
declare module 'busboy' {
  import type { IncomingHttpHeaders } from 'node:http';
  import type { Readable, Writable } from 'node:stream';

  export interface BusboyConfig {
    headers: IncomingHttpHeaders;
    highWaterMark?: number;
    fileHwm?: number;
    limits?: {
      fieldNameSize?: number;
      fieldSize?: number;
      fields?: number;
      fileSize?: number;
      files?: number;
      parts?: number;
      headerPairs?: number;
    };
  }

  export interface FileInfo {
    filename: string | undefined;
    encoding: string;
    mimeType: string;
  }

  export interface Busboy extends Writable {
    on(
      event: 'file',
      listener: (name: string, stream: Readable & { truncated?: boolean }, info: FileInfo) => void,
    ): this;
    on(event: 'field', listener: (name: string, value: string, info: { valueTruncated: boolean }) => void): this;
    on(event: 'partsLimit' | 'filesLimit' | 'fieldsLimit' | 'close' | 'finish' | 'drain', listener: () => void): this;
    on(event: 'error', listener: (err: Error) => void): this;
  }

  function busboy(config: BusboyConfig): Busboy;
  export default busboy;
}
