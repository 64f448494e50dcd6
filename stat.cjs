const {declarationRuns, runsDeclaring}=require('./out/src/adapters/typescript/declarationChunks');
const fs=require('fs');const c=JSON.parse(fs.readFileSync('/tmp/prof/c.json'));
const by=new Map();for(const x of c) if(x.symbol){(by.get(x.path)||by.set(x.path,new Set()).get(x.path)).add(x.symbol.split('.')[0]);}
let total=0,parsed=0,runsTotal=0,runsParsed=0; const worst=[];
for(const [f,words] of by){const t=fs.readFileSync('/tmp/prof/real/'+f,'utf8');const r=declarationRuns(t);total+=t.length;runsTotal+=r.starts.length;const sel=new Set();for(const w of words)for(const i of runsDeclaring(t,r,w))sel.add(i);let p=0;for(const i of sel){p+=(r.starts[i+1]??t.length)-r.starts[i];}parsed+=p;runsParsed+=sel.size;worst.push([p,f,r.starts.length,t.length,[...words].join(',')]);}
console.log({total,parsed,runsTotal,runsParsed});worst.sort((a,b)=>b[0]-a[0]);console.log(worst.slice(0,10));
