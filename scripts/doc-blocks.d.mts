export declare const root: string;
export interface DocBlock {
  source: string;
  index: number;
  fileName: string;
  code: string;
}
export declare function docFiles(): string[];
export declare function docBlocks(file: string): DocBlock[];
export declare function writeDocBlocks(dir: string): DocBlock[];
